// Webhook deliveries (extension) on a real nats-server and HTTP endpoint: signed payloads (checked by Python's hmac),
// retries with backoff, giving up, and the delivery log.
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import { WebhookRedeliveryRequested } from "@mds/shared/domain/webhook/WebhookEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM, jobSubject, webhookRedeliverSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WEBHOOKS_DURABLE, WebhookDispatcher } from "../src/webhooks/WebhookDispatcher.ts"
import { requestRedelivery } from "@mds/shared/application/webhook/WebhookCommands"
import { verifyWithPython, type WebhookReceiver } from "../../../test/support/WebhookReceiver.ts"
import { startWebhookStack, type WebhookStack } from "./WebhookStack.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { jobArtifact, jobCompleted, jobFailed, jobQueued, jobRetried, jobStarted } from "../../../test/support/JobEvents.ts"

const PINNED_HOST = "hooks.pinned.test"
let lookups = 0
let stack: WebhookStack
let receiver: WebhookReceiver

beforeAll(async () => {
  const signer = makeDownloadLinkSigner("link-secret", "http://files.test")
  const artifacts = Layer.succeed(ArtifactStore, ArtifactStore.of(makeFsArtifactStore(join(tmpdir(), "mds-webhook-artifacts"), signer)))
  stack = await startWebhookStack({
    // Only the guard knows PINNED_HOST (no DNS server or hosts file does): a delivery there proves the POST connected
    // to the address the guard checked instead of looking the name up again.
    egress: (receiver) => {
      const port = receiver.hostPort.split(":")[1]
      lookups = 0
      return EgressPolicy.layerWith(`${receiver.hostPort},${PINNED_HOST}:${port}`, async (name) => {
        if (name !== PINNED_HOST) return [{ address: "10.1.2.3", family: 4 as const }]
        lookups++
        return [{ address: "127.0.0.1", family: 4 as const }]
      })
    },
    reactor: (provided) => WebhookDispatcher.pipe(Layer.provide(Layer.mergeAll(provided, artifacts)))
  })
  receiver = stack.receiver
})
afterAll(() => stack?.close())

const T = Date.now()
const run = <A, E>(effect: Effect.Effect<A, E, EventStore | NatsClient>) => stack.run(effect)
const configure = (projectId: string, url: string, events: ReadonlyArray<"job.completed" | "job.failed">) =>
  stack.configure(projectId, url, events)

const recordJob = (projectId: string, jobId: string, ending: "completed" | "failed") =>
  run(
    Effect.gen(function* () {
      const store = yield* EventStore
      const events: ReadonlyArray<JobEvent> = [
        jobQueued(projectId, jobId, T),
        jobStarted(jobId, T + 1, { workerId: "w" }),
        ending === "completed"
          ? jobCompleted(
              projectId,
              jobId,
              T + 2,
              jobArtifact(projectId, jobId, T, {
                key: `jobs/${projectId}/${jobId}/a.mp4`,
                filename: "a.mp4",
                sizeBytes: 42,
                availableUntil: T + 3_600_000
              })
            )
          : jobFailed(jobId, T + 2, { code: "download_failed", message: "broken", retryable: true })
      ]
      for (const [index, event] of events.entries()) {
        yield* store.append(JobEventCodec, jobSubject(projectId, jobId), event, { msgId: `${jobId}:${index}` })
      }
    })
  )

const append = (projectId: string, jobId: string, events: ReadonlyArray<JobEvent>) =>
  run(
    Effect.gen(function* () {
      const store = yield* EventStore
      for (const event of events) {
        yield* store.append(JobEventCodec, jobSubject(projectId, jobId), event, {
          msgId: `${jobId}:${event._tag}:${JSON.stringify(event)}`
        })
      }
    })
  )

const deliveryLog = (projectId: string) => stack.deliveryLog(projectId)

const waitForLog = (projectId: string, count: number) =>
  eventually(
    () => deliveryLog(projectId),
    (log) => log.length >= count,
    `${count} entries in the delivery log of ${projectId}`,
    20_000
  )

/** The dispatcher's consumer holds nothing pending or unacknowledged: no attempt is scheduled any more. */
const dispatcherSettled = () =>
  eventually(
    () =>
      run(
        Effect.gen(function* () {
          const { jsm } = yield* NatsClient
          return yield* Effect.promise(() => jsm.consumers.info(JOBS_STREAM.name, WEBHOOKS_DURABLE))
        })
      ),
    (info) => info.num_pending === 0 && info.num_ack_pending === 0,
    "the webhook consumer to acknowledge everything"
  )

describe("WebhookDispatcher", () => {
  it("POSTs job.completed with the job as GET /jobs shows it, signed so that Python's hmac accepts it", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    const secret = await configure(projectId, receiver.url, ["job.completed", "job.failed"])
    const before = receiver.received.length
    await recordJob(projectId, jobId, "completed")
    const delivery = (await receiver.waitFor(before + 1))[before]!
    const payload = JSON.parse(delivery.body)
    expect(payload).toMatchObject({
      type: "job.completed",
      data: { job: { id: jobId, status: "completed", progress: 100, result: { filename: "a.mp4", size_bytes: 42 } } }
    })
    expect(payload.id).toMatch(/^dlv_[0-9a-f]{24}$/)
    expect(payload.data.job.result.download_url).toContain("http://files.test/")
    expect(delivery.headers["content-type"]).toBe("application/json")
    expect(delivery.headers["mds-event"]).toBe("job.completed")
    expect(delivery.headers["mds-delivery-id"]).toBe(payload.id)
    expect(verifyWithPython(secret, delivery)).toBe("valid")
    expect(verifyWithPython(`${secret}x`, delivery)).toBe("invalid")
    expect(verifyWithPython(secret, { ...delivery, body: delivery.body.replace("completed", "failed") })).toBe("invalid")
    const log = await waitForLog(projectId, 1)
    expect(log).toMatchObject([{ outcome: "delivered", attempt: 1, statusCode: 204, jobId, eventType: "job.completed", error: null }])
  })

  it("retries a failing endpoint with growing waits and logs every attempt until it is delivered", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    await configure(projectId, receiver.url, ["job.failed"])
    const before = receiver.received.length
    receiver.answerWith([500, 503])
    await recordJob(projectId, jobId, "failed")
    const deliveries = (await receiver.waitFor(before + 3)).slice(before)
    expect(deliveries.map((d) => d.status)).toEqual([500, 503, 204])
    expect(new Set(deliveries.map((d) => JSON.parse(d.body).id)).size).toBe(1)
    // Waits of 300 ms, then 6 x 300 ms.
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(250)
    expect(deliveries[2]!.at - deliveries[1]!.at).toBeGreaterThanOrEqual(1_700)
    const log = await waitForLog(projectId, 3)
    expect(log.map((entry) => [entry.attempt, entry.outcome, entry.statusCode])).toEqual([
      [1, "will_retry", 500],
      [2, "will_retry", 503],
      [3, "delivered", 204]
    ])
    expect(log[0]!.nextAttemptAt).toBeGreaterThan(log[0]!.at)
  })

  it("gives up after the last attempt", async () => {
    const projectId = newId("prj")
    await configure(projectId, receiver.url, ["job.failed"])
    receiver.answerWith([500, 500, 500, 500, 500])
    const before = receiver.received.length
    await recordJob(projectId, newId("job"), "failed")
    await receiver.waitFor(before + 3)
    const log = await waitForLog(projectId, 3)
    expect(log.map((entry) => entry.outcome)).toEqual(["will_retry", "will_retry", "failed"])
    // Acknowledged after the last attempt: JetStream delivers it no more, so no fourth POST can follow.
    await dispatcherSettled()
    expect(receiver.received.length).toBe(before + 3)
    receiver.answerWith([])
  })

  it("connects to the address the egress guard checked: the name is looked up once, by the guard", async () => {
    const projectId = newId("prj")
    await configure(projectId, receiver.url.replace("127.0.0.1", PINNED_HOST), ["job.completed"])
    const before = receiver.received.length
    const lookupsBefore = lookups
    await recordJob(projectId, newId("job"), "completed")
    const delivery = (await receiver.waitFor(before + 1))[before]!
    expect(delivery.headers.host).toBe(`${PINNED_HOST}:${receiver.hostPort.split(":")[1]}`)
    expect(lookups - lookupsBefore).toBe(1)
  })

  it("sends nothing to projects without an endpoint or for events they did not choose; refuses private addresses", async () => {
    const before = receiver.received.length
    await recordJob(newId("prj"), newId("job"), "completed")
    const selective = newId("prj")
    await configure(selective, receiver.url, ["job.failed"])
    await recordJob(selective, newId("job"), "completed")
    const internal = newId("prj")
    await configure(internal, "http://10.0.0.9:8080/hook", ["job.completed"])
    await recordJob(internal, newId("job"), "completed")
    const log = await waitForLog(internal, 1)
    expect(log[0]).toMatchObject({ statusCode: null, outcome: "will_retry" })
    expect(log[0]!.error).toMatch(/^refused/)
    expect(receiver.received.length).toBe(before)
    expect(await deliveryLog(selective)).toEqual([])
  })

  it("a retried job that fails again announces each failure with its own delivery id; each can be redelivered as it was", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    await configure(projectId, receiver.url, ["job.failed"])
    const before = receiver.received.length
    const transient = { code: "download_failed", message: "HTTP 503", retryable: true } as const
    await append(projectId, jobId, [jobQueued(projectId, jobId, T), jobStarted(jobId, T + 1), jobFailed(jobId, T + 2, transient)])
    const first = (await receiver.waitFor(before + 1))[before]!
    await append(projectId, jobId, [
      jobRetried(jobId, 1, T + 3),
      jobStarted(jobId, T + 4, { attempt: 2 }),
      jobFailed(jobId, T + 5, transient)
    ])
    const second = (await receiver.waitFor(before + 2))[before + 1]!
    const [firstBody, secondBody] = [JSON.parse(first.body), JSON.parse(second.body)]
    expect([firstBody.type, secondBody.type]).toEqual(["job.failed", "job.failed"])
    expect(secondBody.id).toMatch(/^dlv_[0-9a-f]{24}$/)
    // A receiver that drops repeated delivery ids keeps the second failure.
    expect(secondBody.id).not.toBe(firstBody.id)
    expect(second.headers["mds-delivery-id"]).toBe(secondBody.id)
    expect(firstBody.data.job).not.toHaveProperty("retries")
    expect(secondBody.data.job).toMatchObject({ retries: 1, attempts: 2 })
    const log = await waitForLog(projectId, 2)
    expect(log.map((entry) => [entry.deliveryId, entry.outcome])).toEqual([
      [firstBody.id, "delivered"],
      [secondBody.id, "delivered"]
    ])

    // Asked again after the second failure, the first is sent as it was: its own id, the job as its first try ended.
    await run(requestRedelivery(projectId, firstBody.id, Date.now()))
    const again = (await receiver.waitFor(before + 3))[before + 2]!
    expect(JSON.parse(again.body)).toMatchObject({ id: firstBody.id, data: { job: firstBody.data.job } })
  })

  it("sends a given-up delivery again when asked: the same delivery id, logged as a redelivery; asking while it retries is refused", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    await configure(projectId, receiver.url, ["job.failed"])
    receiver.answerWith([500, 500, 500])
    const before = receiver.received.length
    await recordJob(projectId, jobId, "failed")
    const log = await waitForLog(projectId, 3)
    expect(log.at(-1)?.outcome).toBe("failed")
    const deliveryId = log[0]!.deliveryId
    const firstBody = JSON.parse(receiver.received[before]!.body)

    receiver.answerWith([204])
    const asked = await run(requestRedelivery(projectId, deliveryId, Date.now()))
    expect(asked).toMatchObject({ deliveryId, jobId, eventType: "job.failed" })
    // A second click before it ran is the same request: one more POST, not two.
    await run(requestRedelivery(projectId, deliveryId, Date.now()))
    const again = (await receiver.waitFor(before + 4))[before + 3]!
    expect(again.headers["mds-delivery-id"]).toBe(deliveryId)
    const body = JSON.parse(again.body)
    expect(body.id).toBe(deliveryId)
    expect(body.data.job).toEqual(firstBody.data.job)
    const after = await waitForLog(projectId, 4)
    expect(after[3]).toMatchObject({ deliveryId, outcome: "delivered", statusCode: 204, redeliveryOf: log[2]!.at, attempt: 1 })
    const requests = await run(
      Effect.flatMap(EventStore, (store) => store.readSubject(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId)))
    )
    expect(requests).toHaveLength(1)

    // A delivery still retrying may not be sent again beside its retries.
    const retrying = newId("prj")
    await configure(retrying, receiver.url, ["job.failed"])
    receiver.answerWith([500, 500, 500])
    await recordJob(retrying, newId("job"), "failed")
    const pending = await waitForLog(retrying, 1)
    const refused = await run(Effect.exit(requestRedelivery(retrying, pending[0]!.deliveryId, Date.now())))
    expect(refused._tag).toBe("Failure")
    expect(JSON.stringify(refused)).toContain("WebhookDeliveryPending")
    await waitForLog(retrying, 3)
    receiver.answerWith([])
  })
})

// Subscription webhooks (extension) on a real nats-server and HTTP endpoint: subscription.entries_queued names each
// queued entry's job, subscription.failing the last error; both signed like the job webhooks and in the delivery log.
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import type { QueuedEntry } from "@mds/shared/domain/subscription/SubscriptionEvent"
import type { WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import { SUBSCRIPTIONS_STREAM } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { createSubscription } from "../../../test/support/Subscriptions.ts"
import { verifyWithPython, type WebhookReceiver } from "../../../test/support/WebhookReceiver.ts"
import { SUBSCRIPTION_WEBHOOKS_DURABLE, SubscriptionWebhooks } from "../src/webhooks/SubscriptionWebhooks.ts"
import { startWebhookStack, type WebhookStack } from "./WebhookStack.ts"

/** Subscriptions are read by replaying their subjects here (an empty read model: no snapshot). */
const SubscriptionReads = SubscriptionStates.layer.pipe(Layer.provide(InMemorySubscriptionReadModel.layer))

let stack: WebhookStack
let receiver: WebhookReceiver

beforeAll(async () => {
  stack = await startWebhookStack({
    reactor: (provided) => SubscriptionWebhooks.pipe(Layer.provide(Layer.mergeAll(provided, SubscriptionReads)))
  })
  receiver = stack.receiver
})
afterAll(() => stack?.close())

const T = Date.now()
const run = <A, E>(effect: Effect.Effect<A, E, EventStore | NatsClient | SubscriptionStates>) =>
  stack.run(effect.pipe(Effect.provide(SubscriptionReads)))

/** A check of the subscription due at `due`, planned and recorded as the check records it, with its batch if any. */
const recordCheck = (
  projectId: string,
  subscriptionId: string,
  due: number,
  now: number,
  queued: { readonly batchId: string; readonly entries: ReadonlyArray<QueuedEntry> } | null
) => {
  const commands = subscriptionCommands(projectId, subscriptionId)
  const entries = queued?.entries ?? []
  return run(
    Effect.andThen(
      commands({
        _tag: "PlanCheck",
        subscriptionId,
        dueAt: due,
        now,
        mediaId: "med_channel",
        platform: "generic",
        found: entries.length,
        fresh: entries.length,
        filtered: 0,
        seen: entries.map((entry) => entry.archiveKey),
        refreshed: [],
        candidates: entries,
        requeue: [],
        limit: null,
        hold: null
      }),
      commands({ _tag: "RecordCheck", subscriptionId, dueAt: due, now, queued, waiting: [] })
    )
  )
}
const configure = (projectId: string, events: ReadonlyArray<WebhookEventType>) => stack.configure(projectId, receiver.url, events)
const deliveryLog = (projectId: string) => stack.deliveryLog(projectId)

/** A subscription to the channel, made through its decider as the gateway makes it. */
const subscribe = (projectId: string) => run(createSubscription(projectId, "http://feeds.test/channel", { now: T }))

const dueAt = (projectId: string, subscriptionId: string) =>
  run(Effect.map(currentSubscription(projectId, subscriptionId), ({ state }) => state?.nextCheckAt ?? 0))

describe("SubscriptionWebhooks", () => {
  it("POSTs subscription.entries_queued with each queued entry and the job it became, signed, and logs it", async () => {
    const projectId = newId("prj")
    const secret = await configure(projectId, ["subscription.entries_queued"])
    const subscriptionId = await subscribe(projectId)
    const batchId = newId("bat")
    const entries = [
      { archiveKey: "generic e2", entryId: "e2", url: "http://feeds.test/e2.mp4", title: "Second" },
      { archiveKey: "generic e1", entryId: "e1", url: "http://feeds.test/e1.mp4", title: "First" }
    ]
    const before = receiver.received.length
    const due = await dueAt(projectId, subscriptionId)
    await recordCheck(projectId, subscriptionId, due, T + 5, { batchId, entries })
    const delivery = (await receiver.waitFor(before + 1))[before]!
    const payload = JSON.parse(delivery.body)
    expect(payload).toMatchObject({
      type: "subscription.entries_queued",
      created_at: new Date(T + 5).toISOString(),
      data: {
        subscription: { id: subscriptionId, url: "http://feeds.test/channel", status: "active", last_check: { queued: 2 } },
        batch_id: batchId,
        entries: [
          { entry_id: "e2", url: "http://feeds.test/e2.mp4", title: "Second", job_id: entryJobId(batchId, "e2") },
          { entry_id: "e1", url: "http://feeds.test/e1.mp4", title: "First", job_id: entryJobId(batchId, "e1") }
        ]
      }
    })
    expect(payload.data.entries[0].job_id).toMatch(/^job_/)
    expect(delivery.headers["mds-event"]).toBe("subscription.entries_queued")
    expect(delivery.headers["mds-delivery-id"]).toBe(payload.id)
    expect(verifyWithPython(secret, delivery)).toBe("valid")
    const log = await eventually(
      () => deliveryLog(projectId),
      (l) => l.length >= 1,
      "the delivery log"
    )
    expect(log).toMatchObject([
      { v: 2, eventType: "subscription.entries_queued", subscriptionId, jobId: null, outcome: "delivered", attempt: 1, statusCode: 204 }
    ])
  })

  it("POSTs subscription.failing with the last error once the third check in a row failed, retried until delivered", async () => {
    const projectId = newId("prj")
    const secret = await configure(projectId, ["job.failed", "subscription.failing"])
    const subscriptionId = await subscribe(projectId)
    const before = receiver.received.length
    receiver.answerWith([503])
    for (const [i, message] of ["first", "second", "third"].entries()) {
      const due = await dueAt(projectId, subscriptionId)
      await run(
        subscriptionCommands(
          projectId,
          subscriptionId
        )({ _tag: "RecordCheckFailure", subscriptionId, dueAt: due, now: T + 10 + i, error: { code: "download_failed", message } })
      )
    }
    const deliveries = (await receiver.waitFor(before + 2)).slice(before)
    expect(deliveries.map((d) => d.status)).toEqual([503, 204])
    const payload = JSON.parse(deliveries[1]!.body)
    expect(JSON.parse(deliveries[0]!.body).id).toBe(payload.id)
    expect(payload).toMatchObject({
      type: "subscription.failing",
      data: {
        subscription: { id: subscriptionId, status: "failing", last_error: { code: "download_failed", message: "third" } },
        error: { code: "download_failed", message: "third" }
      }
    })
    expect(verifyWithPython(secret, deliveries[1]!)).toBe("valid")
    const log = await eventually(
      () => deliveryLog(projectId),
      (l) => l.length >= 2,
      "the delivery log"
    )
    expect(log.map((entry) => [entry.eventType, entry.attempt, entry.outcome])).toEqual([
      ["subscription.failing", 1, "will_retry"],
      ["subscription.failing", 2, "delivered"]
    ])
    // Only the third failure says failing: nothing more was sent.
    expect(receiver.received.length).toBe(before + 2)
  })

  it("sends nothing to an endpoint that did not choose subscription events", async () => {
    const projectId = newId("prj")
    await configure(projectId, ["job.completed", "job.failed"])
    const subscriptionId = await subscribe(projectId)
    const due = await dueAt(projectId, subscriptionId)
    const batchId = newId("bat")
    await recordCheck(projectId, subscriptionId, due, T + 5, {
      batchId,
      entries: [{ archiveKey: "generic x", entryId: "x", url: "http://feeds.test/x.mp4", title: "X" }]
    })
    // Handled means acknowledged by the durable consumer: every stored subscription event was.
    await eventually(
      () =>
        run(
          Effect.gen(function* () {
            const { jsm } = yield* NatsClient
            return yield* Effect.promise(() => jsm.consumers.info(SUBSCRIPTIONS_STREAM.name, SUBSCRIPTION_WEBHOOKS_DURABLE))
          })
        ),
      (info) => info.num_pending === 0 && info.num_ack_pending === 0 && info.ack_floor.stream_seq === info.delivered.stream_seq,
      "the subscription webhooks consumer to acknowledge every event"
    )
    expect(await deliveryLog(projectId)).toEqual([])
    expect(receiver.received.filter((d) => JSON.parse(d.body).data.subscription?.id === subscriptionId)).toEqual([])
  })
})

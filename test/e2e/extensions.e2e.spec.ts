// The opt-in extensions end to end on the running stack: Idempotency-Key, the SSE job stream and signed webhooks.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { startWebhookReceiver, verifyWithPython, type WebhookReceiver } from "../support/WebhookReceiver.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"
import { rebuildJobsAsOperator } from "./OperatorRebuild.ts"

let receiver: WebhookReceiver
let secret: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await receiver?.close()
})

const e2e = useMediaStack({
  throttleBytesPerSecond: 256 * 1024,
  stack: (media) => ({ env: { EGRESS_ALLOW: `${media.hostPort},${receiver.hostPort}`, WEBHOOK_RETRY_BASE_MS: "500" } })
})

beforeAll(async () => {
  secret = await e2e.stack.cli(["webhook", "set", "--project", e2e.projectId, "--url", receiver.url])
})

const download = (body: Record<string, string>, idempotencyKey: string) =>
  apiRequest(e2e.stack.baseUrl, "POST", "/media/download", { key: e2e.key, json: body, headers: { "idempotency-key": idempotencyKey } })

/** Every `job` event of the stream until the server ends it. */
const readJobStream = async (jobId: string) => {
  const response = await fetch(`${e2e.stack.baseUrl}/jobs/${jobId}/events`, {
    headers: { "x-api-key": e2e.key },
    signal: AbortSignal.timeout(120_000)
  })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
  const text = await response.text()
  return text
    .split("\n\n")
    .filter((block) => block.includes("event: job"))
    .map((block) => {
      const data = block.split("\n").find((line) => line.startsWith("data: ")) ?? ""
      return JSON.parse(data.slice("data: ".length))
    })
}

describe("extensions", () => {
  it("Idempotency-Key, the live job stream and a signed job.completed webhook for one download", async () => {
    const body = { url: e2e.media.urls.slow, format: "video_best" }
    const first = await download(body, "e2e-order-1")
    expect(first.status, e2e.context(first)).toBe(202)
    const jobId: string = first.body.data.job_id
    const replay = await download({ format: "video_best", url: e2e.media.urls.slow }, "e2e-order-1")
    expect(replay.status).toBe(202)
    expect(replay.body.data.job_id).toBe(jobId)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    const reused = await download({ ...body, format: "audio_m4a" }, "e2e-order-1")
    expect(reused.status).toBe(409)
    expect(reused.body.error.code).toBe("idempotency_key_reused")

    const events = await readJobStream(jobId)
    const seen = events.map((e) => `${e.status}:${e.progress}`).join(" ")
    expect(events.length, seen).toBeGreaterThanOrEqual(2)
    expect(
      events.some((e) => e.status === "processing"),
      seen
    ).toBe(true)
    for (let i = 1; i < events.length; i++) expect(events[i].progress, seen).toBeGreaterThanOrEqual(events[i - 1].progress)
    const last = events.at(-1)
    expect(last.status, `${seen}\n${e2e.stack.logs()}`).toBe("completed")
    expect(last.result.download_url).toContain("/v1/files/")

    const [delivery] = await receiver.waitFor(1, 60_000)
    expect(delivery!.headers["mds-event"]).toBe("job.completed")
    expect(verifyWithPython(secret, delivery!)).toBe("valid")
    const payload = JSON.parse(delivery!.body)
    const job = await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key: e2e.key })
    expect(payload.data.job).toEqual(job.body.data)
    expect(payload.data.job).toEqual(last)

    const log = await apiRequest(e2e.stack.baseUrl, "GET", "/webhooks/deliveries", { key: e2e.key })
    expect(log.status).toBe(200)
    expect(log.body.data[0]).toMatchObject({
      delivery_id: payload.id,
      event: "job.completed",
      job_id: jobId,
      outcome: "delivered",
      attempt: 1
    })
    const cliLog = (await e2e.stack.cli(["webhook", "deliveries", "--project", e2e.projectId])).split("\n").map((line) => JSON.parse(line))
    expect(cliLog[0]).toMatchObject({ delivery_id: payload.id, outcome: "delivered" })
  })

  it("a failed job is announced as job.failed, retried while the endpoint answers 500", async () => {
    receiver.answerWith([500])
    const before = receiver.received.length
    const queued = await download({ url: e2e.media.urls.notFound, format: "video_best" }, "e2e-failing")
    expect(queued.status).toBe(202)
    const deliveries = (await receiver.waitFor(before + 2, 60_000)).slice(before)
    expect(deliveries.map((d) => d.status)).toEqual([500, 204])
    expect(deliveries.map((d) => d.headers["mds-event"])).toEqual(["job.failed", "job.failed"])
    expect(JSON.parse(deliveries[1]!.body).data.job).toMatchObject({ id: queued.body.data.job_id, status: "failed" })
    // The attempt is logged once the receiver has answered: the log may lag the second delivery by a moment.
    const log = await eventually(
      () => apiRequest(e2e.stack.baseUrl, "GET", "/webhooks/deliveries?limit=2", { key: e2e.key }),
      (answer) => answer.body.data[0]?.attempt === 2,
      "the second attempt in the delivery log",
      10_000
    )
    expect(log.body.data.map((d: any) => [d.attempt, d.outcome])).toEqual([
      [2, "delivered"],
      [1, "will_retry"]
    ])
  })

  it("a canceled job is announced as job.failed with error.code canceled", async () => {
    receiver.answerWith([204])
    const before = receiver.received.length
    const queued = await download({ url: `${e2e.media.urls.slow}?rate=65536`, format: "video_best" }, "e2e-canceled")
    expect(queued.status).toBe(202)
    const canceled = await apiRequest(e2e.stack.baseUrl, "DELETE", `/jobs/${queued.body.data.job_id}`, { key: e2e.key })
    expect(canceled.status, describeResponse(canceled)).toBe(200)
    const [delivery] = (await receiver.waitFor(before + 1, 60_000)).slice(before)
    expect(delivery!.headers["mds-event"]).toBe("job.failed")
    expect(JSON.parse(delivery!.body).data.job).toMatchObject({
      id: queued.body.data.job_id,
      status: "failed",
      error: { code: "canceled" }
    })
  })

  it("a jobs rebuild run from a shell without the services' settings leaves the link of every answer unchanged", async () => {
    receiver.answerWith([204])
    const before = receiver.received.length
    const queued = await download({ url: e2e.media.urls.mp4, format: "video_best" }, "e2e-rebuilt")
    expect(queued.status, e2e.context(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(job.status, e2e.stack.logs()).toBe("completed")
    const [delivery] = (await receiver.waitFor(before + 1, 60_000)).slice(before)
    // One signer for every answer: the webhook the aggregator sent and the gateway's GET give the same link.
    expect(JSON.parse(delivery!.body).data.job.result.download_url).toBe(job.result.download_url)

    const stdout = await rebuildJobsAsOperator(e2e.stack)
    expect(stdout).toMatch(/^jobs: \d+ events replayed into kv store mds_jobs_r\d+/)
    // A gateway started afresh reads every job from the rebuilt store, not from what it held before.
    await e2e.stack.stopService("gateway")
    await e2e.stack.startService("gateway")

    const after = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(after.job).toEqual(job)
    const [streamed] = await readJobStream(jobId)
    expect(streamed).toEqual(job)
  })
})

// GET /v1/jobs/:jobId answered from memory (JobReadShortcut) must answer exactly as the route's Effect: two gateways on
// one nats-server, one with the shortcut and one without (tracing on makes it stand aside), get the same requests.
import { createServer, type Server } from "node:http"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { JobReadShortcut } from "../src/jobs/JobReadShortcut.ts"
import { type GatewayInstance, type Harness, PEPPER, startGateway, startHarness } from "./GatewayHarness.ts"

const LIMITS = { API_RATE_LIMIT_PER_MINUTE: "8", API_MIN_POLL_INTERVAL_SECONDS: "0.3" }

let h: Harness
let collector: Server
let withShortcut: GatewayInstance
let withoutShortcut: GatewayInstance

const appendJob = (projectId: string, events: (jobId: string, now: number) => ReadonlyArray<JobEvent>) =>
  h.gateway.run(Effect.gen(function*() {
    const store = yield* EventStore
    const jobId = newId("job")
    const list = events(jobId, Date.now())
    for (const [i, event] of list.entries()) {
      yield* store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${event._tag}:${jobId}:${i}` })
    }
    return jobId
  }))

const queued = (projectId: string) => (jobId: string, now: number): ReadonlyArray<JobEvent> => [{
  _tag: "JobQueued",
  v: 1,
  jobId,
  projectId,
  platform: "generic",
  format: "video_best",
  source: { url: "https://example.com/a.mp4", mediaId: null },
  createdAt: now,
  expiresAt: now + 3_600_000
}]

const completed = (projectId: string) => (jobId: string, now: number): ReadonlyArray<JobEvent> => [
  ...queued(projectId)(jobId, now),
  { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: now + 1 },
  {
    _tag: "JobCompleted",
    v: 1,
    jobId,
    artifact: { key: `jobs/${projectId}/${jobId}/clip.mp4`, filename: "clip.mp4", mimeType: "video/mp4", sizeBytes: 12, availableUntil: now + 7_200_000 },
    at: now + 2
  }
]

/** What a client can see of an answer, minus what differs per request (its id) or per second (reset times). */
const seen = async (gateway: GatewayInstance, jobId: string, headers: Record<string, string>) => {
  const response = await gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers })
  const body = response.json()
  if (body.error !== undefined) delete body.error.request_id
  return {
    status: response.statusCode,
    body,
    limit: response.headers["ratelimit-limit"],
    remaining: response.headers["ratelimit-remaining"],
    retryAfter: response.headers["retry-after"] === undefined ? undefined : "set"
  }
}

beforeAll(async () => {
  // Traces need somewhere to go for the second gateway: a collector that takes and drops them.
  collector = createServer((request, response) => {
    request.resume()
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"))
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  const port = (collector.address() as { port: number }).port
  h = await startHarness(LIMITS)
  withShortcut = await startGateway({ ...h.env })
  withoutShortcut = await startGateway({ ...h.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` })
}, 60_000)

afterAll(async () => {
  await withShortcut?.close()
  await withoutShortcut?.close()
  await h?.close()
  await new Promise((resolve) => collector?.close(resolve))
})

describe("JobReadShortcut", () => {
  it("answers every request of a sequence exactly as the route does (success, limits, not found, bad keys)", async () => {
    const mine = await h.provisionKey()
    const other = await h.provisionKey()
    const doomed = await h.provisionKey({ projectId: mine.projectId })
    const done = await appendJob(mine.projectId, completed(mine.projectId))
    const waiting = await appendJob(mine.projectId, queued(mine.projectId))
    const theirs = await appendJob(other.projectId, completed(other.projectId))
    const key = { "x-api-key": mine.key }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    const steps: Array<[string, string, Record<string, string>, number]> = [
      ["first read of a completed job (builds its answer)", done, key, 350],
      ["the same job again, later (from memory)", done, key, 0],
      ["the same job at once: polling too fast", done, key, 350],
      ["a queued job", waiting, key, 0],
      ["another project's job", theirs, key, 0],
      ["a job that does not exist", newId("job"), key, 0],
      ["a malformed job id", "not-a-job", key, 350],
      ["the completed job once more", done, key, 0],
      ["a key of the project (first use)", done, { "x-api-key": doomed.key }, 0],
      ["no key", done, {}, 0],
      ["a key that does not exist", done, { "x-api-key": `svc_test_${"A".repeat(40)}` }, 0],
      ["the key's ninth request in the minute: rate limited", waiting, key, 0]
    ]
    const statuses: Array<number> = []
    for (const [what, jobId, headers, wait] of steps) {
      const a = await seen(withShortcut, jobId, headers)
      const b = await seen(withoutShortcut, jobId, headers)
      expect(a, what).toEqual(b)
      statuses.push(a.status)
      await pause(wait)
    }
    // The sequence covers what it says it does.
    expect(statuses.join(" ")).toBe("200 200 429 200 404 404 404 200 200 401 401 429")

    // A revoked key: once both gateways' directories have the revocation, both refuse it the same way.
    await h.gateway.run(runAdminCommand({ _tag: "RevokeKey", key: keyIdFromHash(hashSecret(PEPPER, doomed.key)) }))
    const doomedKey = { "x-api-key": doomed.key }
    const deadline = Date.now() + 5_000
    while ((await seen(withoutShortcut, done, doomedKey)).status !== 401 && Date.now() < deadline) await pause(50)
    while ((await seen(withShortcut, done, doomedKey)).status !== 401 && Date.now() < deadline) await pause(50)
    const a = await seen(withShortcut, done, doomedKey)
    expect(a.body.error.code).toBe("revoked_api_key")
    expect(a).toEqual(await seen(withoutShortcut, done, doomedKey))
  })

  it("serves a job already answered once from memory, and leaves no trace when it cannot", async () => {
    const mine = await h.provisionKey()
    const done = await appendJob(mine.projectId, completed(mine.projectId))
    const shortcut = await withShortcut.run(JobReadShortcut)
    const input = (jobId: string) => ({ method: "GET", headers: { "x-api-key": mine.key }, query: {}, params: { jobId }, body: undefined })
    // Not cached yet: the route must load it, and nothing was counted (the route's first answer has 7 of 8 left).
    expect(shortcut.tryAnswer(input(done))._tag).toBe("NeedsIo")
    const first = await withShortcut.app.inject({ method: "GET", url: `/v1/jobs/${done}`, headers: { "x-api-key": mine.key } })
    expect(first.statusCode).toBe(200)
    expect(first.headers["ratelimit-remaining"]).toBe("7")
    await new Promise((resolve) => setTimeout(resolve, 350))
    const fromMemory = shortcut.tryAnswer(input(done))
    expect(fromMemory._tag).toBe("Replied")
    if (fromMemory._tag === "Replied" && fromMemory.reply._tag === "Json") {
      expect(fromMemory.reply.data).toEqual(first.json().data)
      expect(fromMemory.reply.headers?.["ratelimit-remaining"]).toBe("6")
    }
  })
})

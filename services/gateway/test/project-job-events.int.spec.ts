// GET /v1/jobs/events (extension) over a real socket: every change of the project's jobs, filtered, resumable.
import type { AddressInfo } from "node:net"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { Effect } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { jobFailed, jobProgressed, jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"
import { sseReader } from "../../../test/support/SseReader.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let base: string

beforeAll(async () => {
  h = await startHarness()
  await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })
  base = `http://127.0.0.1:${(h.gateway.app.server.address() as AddressInfo).port}`
})
/** Streams a test opened: closed after it, also when it failed half-way. */
const opened: Array<AbortController> = []
afterEach(() => {
  for (const controller of opened.splice(0)) controller.abort()
})
afterAll(async () => {
  await h?.close()
})

const record = (projectId: string, jobId: string, ...events: ReadonlyArray<JobEvent>) =>
  h.gateway.run(
    Effect.gen(function* () {
      const store = yield* EventStore
      for (const event of events) {
        yield* store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${jobId}:${JSON.stringify(event)}` })
      }
    })
  )

/** Opens the project's stream; the server has read where it starts once the answer's headers are here. */
const open = async (key: string, query = "", headers: Record<string, string> = {}) => {
  const controller = new AbortController()
  opened.push(controller)
  const response = await fetch(`${base}/v1/jobs/events${query}`, { headers: { "x-api-key": key, ...headers }, signal: controller.signal })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
  return { events: sseReader(response.body!) }
}

describe("GET /v1/jobs/events", () => {
  it("sends each change of the project's jobs as it happens, none of another project's; a filter keeps its jobs and sends a leaving one once more", async () => {
    const { key, projectId } = await h.provisionKey()
    const other = await h.provisionKey()
    const all = await open(key)
    const processing = await open(key, "?status=processing&platform=generic")
    const [first, second, foreign] = [newId("job"), newId("job"), newId("job")]
    const now = Date.now()

    await record(projectId, first, jobQueued(projectId, first, now))
    const queued = await all.events.next()
    expect(queued).toMatchObject({ event: "job", data: { id: first, status: "queued", progress: 0, platform: "generic" } })
    await record(other.projectId, foreign, jobQueued(other.projectId, foreign, now), jobStarted(foreign, now + 1))
    await record(projectId, first, jobStarted(first, now + 2), jobProgressed(first, 40, now + 3))
    // The other project's job never shows up: the next events are this project's, in order.
    const started = await all.events.next()
    expect(started?.data).toMatchObject({ id: first, status: "processing", progress: 0 })
    expect(Number(started?.id)).toBeGreaterThan(Number(queued?.id))
    expect((await all.events.next())?.data).toMatchObject({ id: first, status: "processing", progress: 40 })
    // The same percent again is no change a client would see.
    await record(projectId, first, jobProgressed(first, 40, now + 4))
    await record(projectId, second, jobQueued(projectId, second, now + 5))
    expect((await all.events.next())?.data).toMatchObject({ id: second, status: "queued" })

    await record(projectId, first, jobFailed(first, now + 6, { code: "download_failed", message: "HTTP 503", retryable: true }))
    expect((await all.events.next())?.data).toMatchObject({
      id: first,
      status: "failed",
      error: { code: "download_failed", retryable: true }
    })

    // The filtered stream: queued jobs never pass it; the first job did while processing, and is sent once more as it
    // left. (How many of its processing states it saw depends on when it read the job: each one it sent is exact.)
    await record(projectId, second, jobStarted(second, now + 7))
    const filtered: Array<string> = []
    for (let event = await processing.events.next(); event !== null; event = await processing.events.next()) {
      filtered.push(`${event.data.id === first ? "first" : "second"}:${event.data.status}`)
      if (event.data.id === second) break
    }
    expect(filtered.at(-2)).toBe("first:failed")
    expect(filtered.at(-1)).toBe("second:processing")
    expect(new Set(filtered.slice(0, -2))).toEqual(new Set(["first:processing"]))
  })

  it("resumes after Last-Event-ID: a job that changed while the client was away is sent as it is now", async () => {
    const { key, projectId } = await h.provisionKey()
    const jobId = newId("job")
    const now = Date.now()
    const first = await open(key)
    await record(projectId, jobId, jobQueued(projectId, jobId, now))
    const seen = await first.events.next()
    // The client goes away.
    for (const controller of opened.splice(0)) controller.abort()
    await record(projectId, jobId, jobStarted(jobId, now + 1), jobProgressed(jobId, 70, now + 2))
    const again = await open(key, "", { "last-event-id": seen?.id ?? "" })
    expect((await again.events.next())?.data).toMatchObject({ id: jobId, status: "processing", progress: 70 })
  })

  it("without a key: 401, before any stream", async () => {
    const response = await fetch(`${base}/v1/jobs/events`)
    expect(response.status).toBe(401)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("missing_api_key")
  })
})

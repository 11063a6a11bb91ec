// GET /v1/jobs/:jobId/events (extension) over a real socket: a job event per change, the end of the stream, shutdown.
import { get, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { type SseEvent, sseReader } from "../../../test/support/SseReader.ts"
import { liveStreamCount } from "../src/http/LiveStreams.ts"
import { type GatewayInstance, type Harness, startGateway, startHarness } from "./GatewayHarness.ts"

let h: Harness
let base: string

beforeAll(async () => {
  h = await startHarness()
  await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })
  base = `http://127.0.0.1:${(h.gateway.app.server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await h?.close()
})

/** A job queued in a project of its own (each project may hold only two unfinished jobs). */
const queueJob = async () => {
  const { key, projectId } = await h.provisionKey()
  const response = await fetch(`${base}/v1/media/download`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ url: "https://vimeo.com/777", format: "video_best" })
  })
  expect(response.status).toBe(202)
  const jobId = ((await response.json()) as { data: { job_id: string } }).data.job_id
  return { jobId, key, projectId }
}

const record = (projectId: string, jobId: string, event: JobEvent) =>
  h.gateway.run(
    Effect.gen(function* () {
      const store = yield* EventStore
      yield* store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${jobId}:${event._tag}:${JSON.stringify(event)}` })
    })
  )

/** Pauses, on the server, every consumer of MDS_JOBS that follows `subject`: they stop delivering, and say nothing. */
const pauseConsumersOf = (subject: string) =>
  h.gateway.run(
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      return yield* Effect.promise(async () => {
        let paused = 0
        for await (const consumer of jsm.consumers.list(JOBS_STREAM.name)) {
          const filters = [consumer.config.filter_subject, ...(consumer.config.filter_subjects ?? [])]
          if (!filters.includes(subject)) continue
          await jsm.consumers.pause(JOBS_STREAM.name, consumer.name, new Date(Date.now() + 3_600_000))
          paused++
        }
        return paused
      })
    })
  )

describe("GET /v1/jobs/:jobId/events", () => {
  it("sends the job now, then on every change, and ends after completion with the download link", async () => {
    const { jobId, key, projectId } = await queueJob()
    const response = await fetch(`${base}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": key } })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const events = sseReader(response.body!)
    const first = await events.next()
    expect(first).toMatchObject({ event: "job", data: { id: jobId, status: "queued", progress: 0 } })
    expect(events.raw()).toMatch(/^retry: \d+\n\n/)

    const now = Date.now()
    await record(projectId, jobId, { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: now })
    expect((await events.next())?.data).toMatchObject({ status: "processing", progress: 0 })
    await record(projectId, jobId, { _tag: "JobProgressed", v: 1, jobId, percent: 40, at: now + 1 })
    const progressed = await events.next()
    expect(progressed?.data).toMatchObject({ status: "processing", progress: 40 })
    expect(Number(progressed?.id)).toBeGreaterThan(Number(first?.id))
    await record(projectId, jobId, {
      _tag: "JobCompleted",
      v: 1,
      jobId,
      artifact: {
        key: `jobs/${projectId}/${jobId}/a.mp4`,
        filename: "a.mp4",
        mimeType: "video/mp4",
        sizeBytes: 10,
        availableUntil: now + 60_000
      },
      at: now + 2
    })
    const completed = await events.next()
    expect(completed?.data).toMatchObject({ status: "completed", progress: 100, result: { filename: "a.mp4", size_bytes: 10 } })
    expect(completed?.data.result.download_url).toContain("/v1/files/")
    expect(await events.next()).toBeNull()
  })

  it("reaches the end of the job when its consumer stops delivering (paused on the server, as when its node stalls)", async () => {
    const { jobId, key, projectId } = await queueJob()
    const response = await fetch(`${base}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": key } })
    const events = sseReader(response.body!)
    expect((await events.next())?.data).toMatchObject({ status: "queued" })
    // The stream sends the job first and then creates its consumer.
    await eventually(
      () => pauseConsumersOf(jobSubject(projectId, jobId)),
      (paused) => paused > 0,
      "the stream's consumer"
    )

    const now = Date.now()
    await record(projectId, jobId, { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: now })
    await record(projectId, jobId, {
      _tag: "JobFailed",
      v: 1,
      jobId,
      error: { code: "download_failed", message: "nope", retryable: false },
      at: now + 1
    })
    const rest: Array<SseEvent> = []
    const ended = (async () => {
      for (let event = await events.next(); event !== null; event = await events.next()) rest.push(event)
    })()
    // The bare consumer of before waited on the paused one until nats.js's missed heartbeats (30 s and more).
    await Promise.race([
      ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`the stream did not end: ${JSON.stringify(rest)}`)), 10_000))
    ])
    expect(rest.map((event) => event.data.status)).toEqual(["processing", "failed"])
  })

  it("a finished job gets one event and the end of the stream", async () => {
    const { jobId, key, projectId } = await queueJob()
    await record(projectId, jobId, {
      _tag: "JobFailed",
      v: 1,
      jobId,
      error: { code: "download_failed", message: "nope", retryable: false },
      at: Date.now()
    })
    // Finished as the gateway sees it: its job views mirror the read model, which the projection writes a moment later.
    await eventually(
      async () =>
        ((await (await fetch(`${base}/v1/jobs/${jobId}`, { headers: { "x-api-key": key } })).json()) as { data?: { status?: string } }).data
          ?.status,
      (status) => status === "failed",
      "the job read as failed"
    )
    const response = await fetch(`${base}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": key } })
    const events = sseReader(response.body!)
    expect((await events.next())?.data).toMatchObject({ status: "failed", error: { code: "download_failed" } })
    expect(await events.next()).toBeNull()
  })

  it("unknown jobs, other projects' jobs and missing keys get the JSON error, not a stream", async () => {
    const { jobId, key } = await queueJob()
    const other = await h.provisionKey()
    const foreign = await fetch(`${base}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": other.key } })
    expect(foreign.status).toBe(404)
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("job_not_found")
    const unknown = await fetch(`${base}/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa/events`, { headers: { "x-api-key": key } })
    expect(unknown.status).toBe(404)
    expect((await fetch(`${base}/v1/jobs/${jobId}/events`)).status).toBe(401)
  })

  it("a client that goes away releases its stream", async () => {
    const { jobId, key } = await queueJob()
    // node:http rather than fetch: fetch's pool may open a spare connection that would hold up the server's close.
    const request = get(`${base}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": key } })
    const response = await new Promise<IncomingMessage>((resolve) => request.once("response", resolve))
    await new Promise((resolve) => response.once("data", resolve))
    const before = liveStreamCount()
    expect(before).toBeGreaterThan(0)
    request.destroy()
    await eventually(
      async () => liveStreamCount(),
      (count) => count < before,
      "the stream released",
      5_000
    )
  })

  it("closing the gateway ends open streams instead of waiting for them", async () => {
    const other: GatewayInstance = await startGateway(h.env)
    await other.app.listen({ host: "127.0.0.1", port: 0 })
    const port = (other.app.server.address() as AddressInfo).port
    const { jobId, key } = await queueJob()
    const response = await fetch(`http://127.0.0.1:${port}/v1/jobs/${jobId}/events`, { headers: { "x-api-key": key } })
    const events = sseReader(response.body!)
    expect((await events.next())?.data.status).toBe("queued")
    const started = Date.now()
    await other.close()
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await events.next()).toBeNull()
  })
})

describe("event streams per project (EVENT_STREAMS_PER_PROJECT)", () => {
  it("a project holding its limit of open streams gets 429 too_many_streams; a closed one frees its place; other projects are not counted", async () => {
    const limited: GatewayInstance = await startGateway({ ...h.env, EVENT_STREAMS_PER_PROJECT: "2" })
    await limited.app.listen({ host: "127.0.0.1", port: 0 })
    const url = `http://127.0.0.1:${(limited.app.server.address() as AddressInfo).port}/v1/jobs/events`
    /** Opens a stream (kept open, read in the background) or gives the refusal's status, headers and envelope. */
    const open = async (key: string) => {
      const controller = new AbortController()
      const response = await fetch(url, { headers: { "x-api-key": key }, signal: controller.signal })
      if (response.status !== 200) {
        const body = (await response.json()) as { error: { code: string; message: string; request_id: string } }
        return { status: response.status, headers: response.headers, body, close: () => undefined }
      }
      void response.body?.pipeTo(new WritableStream()).catch(() => undefined)
      return { status: 200, headers: response.headers, body: null, close: () => controller.abort() }
    }
    try {
      const { key } = await h.provisionKey()
      const first = await open(key)
      expect([first.status, (await open(key)).status]).toEqual([200, 200])

      const refused = await open(key)
      expect(refused.status).toBe(429)
      expect(refused.headers.get("retry-after")).toBe("15")
      expect(refused.body?.error.code).toBe("too_many_streams")
      expect(refused.body?.error.message).toMatch(/2 event streams/)
      expect(refused.body?.error.request_id).toBe(refused.headers.get("x-request-id"))

      // Another project's streams are its own.
      expect((await open((await h.provisionKey()).key)).status).toBe(200)

      // The client of the first stream leaves: its place is free again.
      first.close()
      await eventually(
        async () => (await open(key)).status,
        (status) => status === 200,
        "a stream accepted again after one closed",
        5_000
      )
    } finally {
      // Streams left open end with the gateway; their connections close with them (no keep-alive to wait out).
      await limited.close()
    }
  })
})

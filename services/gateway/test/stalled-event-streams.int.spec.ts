// GET /v1/jobs/events with clients that stop reading: 16 streams of one project ask for its whole history
// (Last-Event-ID: 1) and read nothing. The gateway buffers at most EVENT_STREAM_BUFFER_BYTES each, disconnects them
// after EVENT_STREAM_STALL_SECONDS, and what it holds does not grow with the project's history; a client that reads
// gets every event. The gateway listens on a Unix socket here: the kernel takes about 200 KB of a stalled client's
// data there (about 4 MB on loopback TCP), so the bound is reached after a few hundred events rather than thousands.
import { request } from "node:http"
import { connect, type Socket } from "node:net"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { jobFailed, jobQueued } from "../../../test/support/JobEvents.ts"
import { sseReader } from "../../../test/support/SseReader.ts"
import { liveStreamBufferedBytes, liveStreamsOf } from "../src/http/LiveStreams.ts"
import { type GatewayInstance, type Harness, startGateway, startHarness } from "./GatewayHarness.ts"

const BUFFER_BYTES = 32 * 1024
const STREAMS = 16
/**
 * Jobs in the project's history, each queued then failed with a 4 KB message: a client resuming from the start is sent
 * each job once, as it is now, about 4.4 KB a job, some 1.3 MB in all (the kernel takes 200 KB of it per stalled client).
 */
const JOBS = 300
const MESSAGE = "the platform answered: ".padEnd(4_000, "x")

let h: Harness
let gateway: GatewayInstance
let socketDir: string
let socketPath: string
let key: string
let projectId: string
const sockets: Array<Socket> = []

beforeAll(async () => {
  h = await startHarness()
  gateway = await startGateway({ ...h.env, EVENT_STREAM_BUFFER_BYTES: String(BUFFER_BYTES), EVENT_STREAM_STALL_SECONDS: "1" })
  socketDir = await mkdtemp(join(tmpdir(), "mds-sse-"))
  socketPath = join(socketDir, "gateway.sock")
  await gateway.app.listen({ path: socketPath })
  ;({ key, projectId } = await h.provisionKey())
  const now = Date.now()
  await gateway.run(
    Effect.gen(function* () {
      const store = yield* EventStore
      yield* Effect.forEach(
        Array.from({ length: JOBS }, () => newId("job")),
        (jobId) =>
          Effect.forEach(
            [jobQueued(projectId, jobId, now), jobFailed(jobId, now + 1, { code: "download_failed", message: MESSAGE, retryable: true })],
            (event, i) => store.append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${jobId}:${i}` }),
            { discard: true }
          ),
        { concurrency: 16, discard: true }
      )
    })
  )
}, 120_000)

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await gateway?.close()
  await h?.close()
  await rm(socketDir, { recursive: true, force: true })
})

/** A client that asks for the project's history, reads the answer's head, then reads nothing more. */
const stalledClient = () =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(socketPath)
    sockets.push(socket)
    let head = ""
    socket.on("error", () => undefined)
    socket.once("connect", () =>
      socket.write(`GET /v1/jobs/events HTTP/1.1\r\nHost: gateway\r\nX-API-Key: ${key}\r\nLast-Event-ID: 1\r\n\r\n`)
    )
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1")
      if (!head.includes("\r\n\r\n")) return
      socket.off("data", onData)
      socket.pause()
      if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head.slice(0, 200)))
      else resolve(socket)
    }
    socket.on("data", onData)
  })

describe("event streams whose clients stop reading", () => {
  it(`${STREAMS} stalled streams of one project are disconnected, each having held at most its buffer`, async () => {
    let peakBuffered = 0
    const sample = setInterval(() => (peakBuffered = Math.max(peakBuffered, liveStreamBufferedBytes())), 10)
    try {
      await Promise.all(Array.from({ length: STREAMS }, stalledClient))
      expect(liveStreamsOf(projectId)).toBe(STREAMS)
      // Unbounded, each would hold the project's whole history (some 1.3 MB) until the client read or left.
      await eventually(
        async () => liveStreamsOf(projectId),
        (open) => open === 0,
        () => `the stalled streams disconnected (${liveStreamBufferedBytes()} bytes buffered now)`,
        45_000
      )
    } finally {
      clearInterval(sample)
    }
    // What the gateway held for them: at most a buffer each (and the last event written over it), never a history.
    expect(peakBuffered).toBeGreaterThan(0)
    expect(peakBuffered).toBeLessThanOrEqual(STREAMS * (BUFFER_BYTES + 4096))
  }, 90_000)

  it("a client that reads gets the project's whole history, many times its buffer, in order", async () => {
    const response = await new Promise<import("node:http").IncomingMessage>((resolve, reject) =>
      request({ socketPath, path: "/v1/jobs/events", headers: { "x-api-key": key, "last-event-id": "1" } }, resolve)
        .on("error", reject)
        .end()
    )
    try {
      expect(response.statusCode).toBe(200)
      const events = sseReader(Readable.toWeb(response) as ReadableStream<Uint8Array>)
      const failed = new Set<string>()
      let last = 0
      while (failed.size < JOBS) {
        const event = await events.next()
        expect(event).not.toBeNull()
        expect(Number(event!.id)).toBeGreaterThan(last)
        last = Number(event!.id)
        expect(event!.data).toMatchObject({ status: "failed", error: { code: "download_failed", message: MESSAGE } })
        failed.add(event!.data.id)
      }
    } finally {
      response.destroy()
    }
  }, 90_000)
})

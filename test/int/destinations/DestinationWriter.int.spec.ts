// Runs the DestinationWriter contract on moto's S3 server and on a temporary folder, and checks what a failing
// destination answers: wrong credentials are denied, a closed port is unreachable, the egress guard holds.
import { mkdir, mkdtemp, readdir, utimes, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { createServer, type AddressInfo, type Socket } from "node:net"
import { ConfigProvider, Effect, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { Client } from "minio"
import { afterAll } from "vitest"
import type { WritableTarget } from "@mds/shared/destinations/DestinationWriter"
import { DestinationWriters } from "@mds/shared/destinations/DestinationWriters"
import { PARTIAL_HOST, STALE_PARTIAL_MS } from "@mds/shared/destinations/FolderDestinationWriter"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { freePort } from "../../support/NatsServer.ts"
import { startMotoServer } from "../../support/MotoServer.ts"
import { breakingStream, destinationWriterContract } from "./DestinationWriter.contract.ts"

const moto = await startMotoServer()
// Checks every request's credentials: none exists in its IAM, so every key is a wrong one.
const strictMoto = await startMotoServer({ INITIAL_NO_AUTH_ACTION_COUNT: "0" })
afterAll(() => Promise.all([moto.close(), strictMoto.close()]))

const hostPort = (endpoint: string) => new URL(endpoint).host
const writersLayer = (allow: string, env: Record<string, string> = {}) =>
  DestinationWriters.layer.pipe(
    Layer.provide(EgressPolicy.layerWith(allow, async () => [{ address: "127.0.0.1", family: 4 as const }])),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
  )
const openWriter = (target: WritableTarget, allow: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    return yield* (yield* DestinationWriters).writerFor(target)
  }).pipe(Effect.provide(writersLayer(allow, env)))
const writerFor = (target: WritableTarget, allow: string, env: Record<string, string> = {}) =>
  Effect.runPromise(openWriter(target, allow, env))

const BUCKET = "mds-destination"
const s3Target = (endpoint: string, overrides: Partial<WritableTarget & { kind: "s3" }> = {}): WritableTarget => ({
  kind: "s3",
  endpoint,
  bucket: BUCKET,
  region: "us-east-1",
  prefix: "library/",
  accessKeyId: Redacted.make("moto-access-key"),
  secretAccessKey: Redacted.make("moto-secret-key"),
  ...overrides
})

const url = new URL(moto.endpoint)
await new Client({
  endPoint: url.hostname,
  port: Number(url.port),
  useSSL: false,
  accessKey: "a",
  secretKey: "b",
  region: "us-east-1"
}).makeBucket(BUCKET, "us-east-1")

destinationWriterContract("S3 on moto", () => writerFor(s3Target(moto.endpoint), hostPort(moto.endpoint)))

const folder = await mkdtemp(join(tmpdir(), "mds-destination-folder-"))
destinationWriterContract("a folder", () => writerFor({ kind: "folder", path: folder }, ""))

describe("what a failing destination answers", { timeout: 60_000 }, () => {
  it.effect("a folder keeps no partial file after a source broke off", () =>
    Effect.gen(function* () {
      const dir = join(folder, "partial")
      const writer = yield* Effect.promise(() => writerFor({ kind: "folder", path: folder }, ""))
      yield* Effect.flip(writer.put("partial/clip.mp4", { stream: breakingStream([Buffer.alloc(10, 1)]), sizeBytes: null }, "video/mp4"))
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dir)), [])
    })
  )

  it.effect("a folder put removes the temporary files earlier puts of the same name left when killed, not a live writer's", () =>
    Effect.gen(function* () {
      const dir = join(folder, "killed")
      yield* Effect.promise(() => mkdir(dir, { recursive: true }))
      const host = PARTIAL_HOST
      // A process of this host that has exited: its writer is dead however fresh its file.
      const exited = spawnSync("true").pid
      const partials = {
        deadHere: `.clip.mp4.${host}.${exited}.0123456789ab.partial`,
        liveHere: `.clip.mp4.${host}.${process.ppid}.0123456789ab.partial`,
        staleElsewhere: ".clip.mp4.other-host.4242.0123456789ab.partial",
        freshElsewhere: ".clip.mp4.other-host.4343.0123456789ab.partial",
        otherName: `.other.mp4.${host}.${exited}.0123456789ab.partial`
      }
      for (const name of Object.values(partials)) yield* Effect.promise(() => writeFile(join(dir, name), "partial"))
      const old = (Date.now() - STALE_PARTIAL_MS - 60_000) / 1000
      yield* Effect.promise(() => utimes(join(dir, partials.staleElsewhere), old, old))
      const writer = yield* Effect.promise(() => writerFor({ kind: "folder", path: folder }, ""))
      yield* writer.put("killed/clip.mp4", { stream: Readable.from([Buffer.from("media")]), sizeBytes: 5 }, "video/mp4")
      assert.deepStrictEqual(
        (yield* Effect.promise(() => readdir(dir))).sort(),
        [partials.liveHere, partials.freshElsewhere, partials.otherName, "clip.mp4"].sort()
      )
    })
  )

  it.effect("wrong credentials: the write is denied, and the answer holds neither key", () =>
    Effect.gen(function* () {
      const target = s3Target(strictMoto.endpoint, {
        accessKeyId: Redacted.make("AKIAWRONGKEY00000001"),
        secretAccessKey: Redacted.make("wrong-secret-0123456789")
      })
      const outcome = yield* Effect.promise(() => writerFor(target, hostPort(strictMoto.endpoint))).pipe(Effect.flatMap((w) => w.probe()))
      assert.deepInclude(outcome, { ok: false, step: "write", code: "destination_denied" })
      assert.notInclude(JSON.stringify(outcome), "AKIAWRONGKEY00000001")
      assert.notInclude(JSON.stringify(outcome), "wrong-secret-0123456789")
    })
  )

  it.effect("a bucket that does not exist is missing", () =>
    Effect.gen(function* () {
      const writer = yield* Effect.promise(() => writerFor(s3Target(moto.endpoint, { bucket: "no-such-bucket" }), hostPort(moto.endpoint)))
      assert.deepInclude(yield* writer.probe(), { ok: false, step: "write", code: "destination_missing" })
    })
  )

  it.effect("nothing listening: the write is unreachable", () =>
    Effect.gen(function* () {
      const endpoint = `http://127.0.0.1:${yield* Effect.promise(freePort)}`
      const writer = yield* Effect.promise(() => writerFor(s3Target(endpoint), hostPort(endpoint)))
      assert.deepInclude(yield* writer.probe(), { ok: false, step: "write", code: "destination_unreachable" })
    })
  )

  it.effect("a host that takes the connection and stays silent: the write is unreachable once its time is up", () =>
    Effect.gen(function* () {
      const sockets: Array<Socket> = []
      const silent = createServer((socket) => void sockets.push(socket))
      yield* Effect.promise(() => new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve)))
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const writer = yield* Effect.promise(() => writerFor(s3Target(endpoint), hostPort(endpoint)))
      const probing = yield* Effect.forkChild(writer.probe())
      // Until the request reached the silent host, then past the step's 30 s on the test clock.
      while (sockets.length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      yield* TestClock.adjust("31 seconds")
      assert.deepInclude(yield* Fiber.join(probing), { ok: false, step: "write", code: "destination_unreachable" })
      for (const socket of sockets) socket.destroy()
      silent.close()
    })
  )

  it.effect("a loopback endpoint the allow list does not name is refused before any connection", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(openWriter(s3Target(moto.endpoint), ""))
      assert.strictEqual(error._tag, "DestinationUnreachable")
      assert.include(error.message, "private or reserved")
    })
  )

  it.effect("a folder outside DESTINATION_FOLDER_ROOT is denied; one inside opens", () =>
    Effect.gen(function* () {
      const root = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "mds-destination-root-")))
      const inside = join(root, "project-a")
      yield* Effect.promise(() => mkdir(inside))
      const env = { DESTINATION_FOLDER_ROOT: root }
      const refused = yield* Effect.flip(openWriter({ kind: "folder", path: folder }, "", env))
      assert.strictEqual(refused._tag, "DestinationDenied")
      assert.include(refused.message, "DESTINATION_FOLDER_ROOT")
      const writer = yield* Effect.promise(() => writerFor({ kind: "folder", path: inside }, "", env))
      yield* writer.put("a.txt", { stream: Readable.from([Buffer.from("x")]), sizeBytes: 1 }, "text/plain")
      assert.isTrue(yield* writer.exists("a.txt"))
    })
  )
})

/** A stream that sends `chunk` every `everyMs` for `forMs`, then ends (forMs null: stops sending and never ends). */
const tricklingStream = (chunk: Buffer, everyMs: number, forMs: number | null) => {
  const started = Date.now()
  return new Readable({
    read() {
      if (forMs === null && Date.now() - started > everyMs) return
      if (forMs !== null && Date.now() - started > forMs) return void this.push(null)
      setTimeout(() => this.push(chunk), everyMs)
    }
  })
}

describe("a put whose data stops moving (DESTINATION_STALL_SECONDS=1)", { timeout: 30_000 }, () => {
  const stallEnv = { DESTINATION_STALL_SECONDS: "1" }

  it.live("a folder: a source that stops sending fails the put as unreachable, and no partial file stays", () =>
    Effect.gen(function* () {
      const dir = join(folder, "stalled")
      const writer = yield* Effect.promise(() => writerFor({ kind: "folder", path: folder }, "", stallEnv))
      const error = yield* Effect.flip(
        writer.put("stalled/clip.mp4", { stream: tricklingStream(Buffer.alloc(1000, 1), 100, null), sizeBytes: null }, "video/mp4")
      )
      assert.strictEqual(error._tag, "DestinationUnreachable")
      assert.include(error.message, "no data moved for 1s")
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dir)), [])
    })
  )

  it.live("a folder: a slow source that keeps sending is written whole, past the stall period", () =>
    Effect.gen(function* () {
      const writer = yield* Effect.promise(() => writerFor({ kind: "folder", path: folder }, "", stallEnv))
      const written = yield* writer.put(
        "slow/clip.mp4",
        { stream: tricklingStream(Buffer.alloc(1000, 2), 300, 2_500), sizeBytes: null },
        "video/mp4"
      )
      assert.isAtLeast(written.sizeBytes, 7_000)
      assert.isTrue(yield* writer.exists("slow/clip.mp4"))
    })
  )

  it.live("S3: an endpoint that takes the upload, then stops reading and never answers, fails the put as unreachable", () =>
    Effect.gen(function* () {
      const sockets: Array<Socket> = []
      // Reads the request until 1 MiB came in, then nothing more: the client's send stalls once the buffers are full.
      const stalling = createServer((socket) => {
        sockets.push(socket)
        let read = 0
        socket.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read > 1024 * 1024) socket.pause()
        })
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve)))
      const endpoint = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`
      const writer = yield* Effect.promise(() => writerFor(s3Target(endpoint), hostPort(endpoint), stallEnv))
      const body = Buffer.alloc(32 * 1024 * 1024, 3)
      const error = yield* Effect.flip(writer.put("big/clip.mp4", { stream: Readable.from([body]), sizeBytes: body.length }, "video/mp4"))
      assert.strictEqual(error._tag, "DestinationUnreachable")
      assert.include(error.message, "no data moved")
      assert.isAbove(sockets.length, 0)
      for (const socket of sockets) socket.destroy()
      stalling.close()
    })
  )
})

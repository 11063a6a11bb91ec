// A resolve's plaintext cookie copy does not outlive its extractor: kill -9 mid-run, and the sweep removes the copy.
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdir, mkdtemp, readdir, readFile, rm, utimes } from "node:fs/promises"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { it as effectIt } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { RESOLVE_RPC_SUBJECT } from "@mds/shared/nats/Subjects"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { startNatsServer, type NatsServer } from "../../../test/support/NatsServer.ts"
import { REPO_ROOT, SERVICE_NODE_ENV, SERVICE_NODE_FLAGS } from "../../../test/support/ServiceStack.ts"
import {
  COOKIE_COPIES_DIR,
  COOKIE_OWNER_STALE_MS,
  COOKIE_SWEEP_INTERVAL_MS,
  CookieCopies,
  sweepCookieCopies
} from "../src/cookies/CookieCopies.ts"
import { ExtractorConfig } from "../src/ExtractorConfig.ts"
import { YT_DLP } from "./ExtractorHarness.ts"
import { eventually } from "../../../test/support/Eventually.ts"

const KEY = randomBytes(32).toString("hex")
const SESSION = `session-${randomBytes(8).toString("hex")}`

let nats: NatsServer
let dataDir: string
/** A page that accepts connections and never answers: the resolve stays mid-run, its cookie copy on disk. */
let stall: Server
const held: Array<Socket> = []
let client: NatsConnection
let extractor: ChildProcess | null = null

beforeAll(async () => {
  nats = await startNatsServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-cookie-copies-"))
  stall = createServer((socket) => void held.push(socket))
  await new Promise<void>((resolve) => stall.listen(0, "127.0.0.1", resolve))
  client = await connect({ servers: nats.url })
})

afterAll(async () => {
  if (extractor !== null && extractor.exitCode === null && extractor.signalCode === null) extractor.kill("SIGKILL")
  // The killed extractor's yt-dlp is still waiting on the page: closing its connection ends it.
  for (const socket of held) socket.destroy()
  stall?.close()
  await client?.close()
  await nats?.close()
  await rm(dataDir, { recursive: true, force: true })
})

const OWNER = newId("prj")

/** Every file under `dir` whose content holds the session, i.e. every plaintext copy of the project's cookies. */
const copiesUnder = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  const found: Array<string> = []
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    if ((await readFile(path, "utf8").catch(() => "")).includes(SESSION)) found.push(path)
  }
  return found
}

/** The value once `done` holds, or the last one read at the deadline (the caller's expectation then says what is wrong). */
const until = <A>(probe: () => Promise<A>, done: (value: A) => boolean, timeoutMs: number): Promise<A> =>
  eventually(probe, done, "the condition", timeoutMs, 100).catch(() => probe())

/** Starts the extractor as its own process and waits for its "extractor ready" line. */
const startExtractor = async () => {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join("services", "extractor", "src", "main.ts")], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      ...SERVICE_NODE_ENV,
      NATS_URL: nats.url,
      DATA_DIR: dataDir,
      COOKIES_ENCRYPTION_KEY: KEY,
      DOWNLOAD_URL_SECRET: "test-secret",
      PUBLIC_BASE_URL: "http://gateway.test",
      YT_DLP_PATH: YT_DLP,
      EGRESS_ALLOW: `127.0.0.1:${(stall.address() as { port: number }).port}`
    }
  })
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`extractor not ready:\n${output}`)), 90_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("extractor ready")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once("exit", () => reject(new Error(`extractor exited:\n${output}`)))
  })
  return child
}

const copiesRoot = () => join(dataDir, "work", COOKIE_COPIES_DIR)

/** One sweep as another extractor (which owns no folder here) runs it. */
const sweep = () => Effect.runPromise(sweepCookieCopies(copiesRoot(), null))

const exists = (path: string) =>
  readdir(path).then(
    () => true,
    () => false
  )

/** Stores the project's cookies as the gateway's cookies API does (the extractor made the streams). */
const storeCookies = async () => {
  const vault = ManagedRuntime.make(
    CookieVault.layer.pipe(
      Layer.provide(JetStreamEventStore),
      Layer.provide(NatsClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ NATS_URL: nats.url, COOKIES_ENCRYPTION_KEY: KEY }))),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await vault.runPromise(
    Effect.gen(function* () {
      yield* (yield* CookieVault).store(
        OWNER,
        "generic",
        `# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tmds_session\t${SESSION}\n`,
        "uploaded"
      )
    })
  )
  await vault.dispose()
}

describe("plaintext cookie copies", () => {
  it("a resolve's copy is kept while its extractor lives and removed once it was killed (kill -9) mid-run", async () => {
    const child = await startExtractor()
    extractor = child
    await storeCookies()
    const url = `http://127.0.0.1:${(stall.address() as { port: number }).port}/members`
    // Not awaited: the page never answers, so the resolve is still running when its extractor dies.
    client.request(RESOLVE_RPC_SUBJECT, JSON.stringify({ url, projectId: OWNER }), { timeout: 60_000 }).catch(() => undefined)
    const copies = await until(
      () => copiesUnder(dataDir),
      (found) => found.length > 0,
      30_000
    )
    expect(copies).toHaveLength(1)
    await until(
      async () => held.length,
      (count) => count > 0,
      30_000
    )

    // Another extractor's sweep leaves a live run's copy alone.
    await sweep()
    expect(await copiesUnder(dataDir)).toEqual(copies)

    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGKILL")
    await exited
    expect(await copiesUnder(dataDir)).toEqual(copies)
    await sweep()
    expect(await copiesUnder(dataDir)).toEqual([])
  })

  effectIt.effect("the sweep runs on a timer: a folder whose owner is gone goes at the next beat, the extractor's own stays", () =>
    Effect.gen(function* () {
      const own = (yield* CookieCopies).dir
      // The same host and PID namespace, this very pid, but another start time: a process that is gone.
      const [host] = own.split("/").at(-1)?.split("-") ?? []
      const gone = join(copiesRoot(), `${host}-${process.pid}-1`)
      yield* Effect.promise(() => mkdir(gone, { recursive: true }))
      yield* TestClock.adjust(COOKIE_SWEEP_INTERVAL_MS)
      yield* waitUntil(() => exists(gone).then((present) => !present))
      expect(yield* Effect.promise(() => exists(gone))).toBe(false)
      expect(yield* Effect.promise(() => exists(own))).toBe(true)
    }).pipe(Effect.provide(copiesLayer()))
  )

  effectIt.effect("a folder of another host is kept while its heartbeat is fresh and removed once it stopped", () =>
    Effect.gen(function* () {
      const now = Date.now()
      yield* TestClock.setTime(now)
      const elsewhere = join(copiesRoot(), `${"f".repeat(16)}-1-abc`)
      yield* Effect.promise(async () => {
        await mkdir(elsewhere, { recursive: true })
        await utimes(elsewhere, new Date(now), new Date(now))
      })
      yield* sweepCookieCopies(copiesRoot(), null)
      expect(yield* Effect.promise(() => exists(elsewhere))).toBe(true)
      yield* TestClock.adjust(COOKIE_OWNER_STALE_MS + 1)
      yield* sweepCookieCopies(copiesRoot(), null)
      expect(yield* Effect.promise(() => exists(elsewhere))).toBe(false)
    })
  )
})

const copiesLayer = () =>
  CookieCopies.layer.pipe(
    Layer.provide(ExtractorConfig.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ DATA_DIR: dataDir }))),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )

/** Lets the forked sweep's file-system work finish: real I/O turns, no test-clock time, a bounded number of them. */
const waitUntil = (done: () => Promise<boolean>) =>
  Effect.promise(async () => {
    for (let turn = 0; turn < 2_000 && !(await done()); turn++) await new Promise((r) => setImmediate(r))
  })

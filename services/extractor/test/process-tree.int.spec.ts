// An interrupted yt-dlp run leaves no process behind in either confinement mode, started cold or forked by the warm runner.
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { ConfigProvider, Effect, Fiber, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { startEgressProxy } from "../src/egress/EgressProxy.ts"
import { Confinement } from "../src/sandbox/Confinement.ts"
import { WarmRunner } from "../src/warm/WarmRunner.ts"
import { makeYtDlp } from "../src/ytdlp/YtDlpProcess.ts"
import { baseFlags, CURL_DOWNLOADER_FLAGS } from "../src/ytdlp/YtDlpFlags.ts"
import { YT_DLP } from "./ExtractorHarness.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { descendantsOf, groupMembers, isAlive } from "../../../test/support/ProcessTree.ts"

const PYTHON = join(YT_DLP, "..", "python3")

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mds-tree-"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Host pids of the processes whose command line holds `token` (seen from outside any namespace). */
const pidsWith = async (token: string): Promise<Array<number>> => {
  const found: Array<number> = []
  for (const name of await readdir("/proc")) {
    if (!/^[0-9]+$/.test(name)) continue
    const cmdline = await readFile(join("/proc", name, "cmdline"), "utf8").catch(() => "")
    if (cmdline.includes(token)) found.push(Number(name))
  }
  return found
}

/** The value once `done` holds, or the last one read at the deadline (the caller's expectation then says what is wrong). */
const until = <A>(probe: () => Promise<A>, done: (value: A) => boolean, timeoutMs: number): Promise<A> =>
  eventually(probe, done, "the condition", timeoutMs, 50).catch(() => probe())

/** A stand-in for yt-dlp that starts a long-lived child of its own, as yt-dlp starts ffmpeg, and waits for it. */
const standIn = async (token: string) => {
  const path = join(dir, `yt-dlp-${randomBytes(4).toString("hex")}`)
  await writeFile(path, `#!/bin/sh\n"${PYTHON}" -I -S -c 'import time; time.sleep(600)' ${token} &\nwait\n`)
  await chmod(path, 0o755)
  return path
}

const interruptedRunLeavesNothing = (mode: "namespace" | "network-policy") => async () => {
  const token = `grandchild-${randomBytes(6).toString("hex")}`
  const confinement = await Effect.runPromise(
    Effect.gen(function* () {
      return yield* Confinement
    }).pipe(
      Effect.provide(
        Confinement.layer.pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ YT_DLP_PATH: YT_DLP, EGRESS_CONFINEMENT: mode })))
        )
      )
    )
  )
  const ytdlp = makeYtDlp(await standIn(token), confinement)
  const fiber = Effect.runFork(ytdlp.run("https://media.test/v", {}))
  const running = await until(
    () => pidsWith(token),
    (pids) => pids.length > 0,
    10_000
  )
  expect(running.length).toBe(1)
  await Effect.runPromise(Fiber.interrupt(fiber))
  const left = await until(
    () => pidsWith(token),
    (pids) => pids.length === 0,
    5_000
  )
  // Only what this test started is cleaned up, by pid, so a failing run leaves nothing behind either.
  for (const pid of left) process.kill(pid, "SIGKILL")
  expect(left).toEqual([])
}

/** A file server whose second answer (a download after its extraction) sends half the file and then nothing. */
const startHeldServer = async () => {
  const body = randomBytes(1024 * 1024)
  let requests = 0
  const held = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(body.length) })
    if (req.method === "HEAD") return void res.end()
    if (++requests !== 2) return void res.end(body)
    held.add(res)
    res.write(body.subarray(0, body.length >> 1))
  })
  const port = await new Promise<number>((r) => server.listen(0, "127.0.0.1", () => r((server.address() as AddressInfo).port)))
  return {
    port,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        for (const res of held) res.destroy()
        server.close(() => r())
      })
  }
}

/** The same for a run forked by the warm runner: its group (runner, yt-dlp, curl) goes as a whole, the runner stays. */
const interruptedWarmRunLeavesNothing = (mode: "namespace" | "network-policy") => async () => {
  const server = await startHeldServer()
  const proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(`127.0.0.1:${server.port}`), async () => []))
  const runtime = ManagedRuntime.make(
    WarmRunner.layer.pipe(
      Layer.provideMerge(Confinement.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ YT_DLP_PATH: YT_DLP, EGRESS_CONFINEMENT: mode })))
    )
  )
  try {
    const { confinement, warm } = await runtime.runPromise(
      Effect.gen(function* () {
        return { confinement: yield* Confinement, warm: yield* WarmRunner }
      })
    )
    const ready = await eventually(
      async () => warm.status().ready,
      (r) => "pid" in r,
      "the warm runner",
      60_000
    )
    const zygote = "pid" in ready ? ready.pid : 0
    const ytdlp = makeYtDlp(YT_DLP, confinement, warm)
    const flags = { ...baseFlags(proxy.url, "ffmpeg"), ...CURL_DOWNLOADER_FLAGS, paths: dir, output: `held-${mode}.%(ext)s` }
    const fiber = Effect.runFork(ytdlp.run(`http://127.0.0.1:${server.port}/held.mp4`, flags))
    await eventually(
      async () => server.requests(),
      (n) => n >= 2,
      "the download to hang"
    )
    const tree = await eventually(
      () => descendantsOf(zygote),
      (t) => t.some((p) => p.comm === "curl"),
      "curl under the runner"
    )
    const runner = tree.find((p) => p.ppid === zygote)
    expect(runner?.pgid, JSON.stringify(tree)).toBe(runner?.pid)
    expect(await groupMembers(runner?.pid ?? 0)).toEqual(expect.arrayContaining(tree.map((p) => p.pid)))

    await Effect.runPromise(Fiber.interrupt(fiber))
    await eventually(
      () => groupMembers(runner?.pid ?? 0),
      (left) => left.length === 0,
      "the run's group to be gone",
      5_000
    )
    expect(await isAlive(zygote)).toBe(true)
  } finally {
    await runtime.dispose()
    await proxy.close()
    await server.close()
  }
}

describe("an interrupted run", () => {
  it("kills the tool's children too (namespace)", interruptedRunLeavesNothing("namespace"))
  it("kills the tool's children too (network-policy)", interruptedRunLeavesNothing("network-policy"))
  it("forked by the warm runner, kills its whole group (namespace)", interruptedWarmRunLeavesNothing("namespace"), 90_000)
  it("forked by the warm runner, kills its whole group (network-policy)", interruptedWarmRunLeavesNothing("network-policy"), 90_000)
})

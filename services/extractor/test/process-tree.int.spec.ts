// An interrupted yt-dlp run leaves no process behind in either confinement mode: the tool and what it started (ffmpeg).
import { randomBytes } from "node:crypto"
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Fiber, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Confinement } from "../src/sandbox/Confinement.ts"
import { makeYtDlp } from "../src/ytdlp/YtDlp.ts"
import { YT_DLP } from "./ExtractorHarness.ts"
import { eventually } from "../../../test/support/Eventually.ts"

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

describe("an interrupted run", () => {
  it("kills the tool's children too (namespace)", interruptedRunLeavesNothing("namespace"))
  it("kills the tool's children too (network-policy)", interruptedRunLeavesNothing("network-policy"))
})

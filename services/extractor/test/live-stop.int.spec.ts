// Stopping a live recording: the run's stop signal (SIGINT to its process group) makes yt-dlp end a live HLS download,
// keep and finalize what it recorded, and exit 0; started cold (the launcher waits, ignoring SIGINT) or warm.
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { execFile } from "node:child_process"
import { Deferred, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { type LiveHlsServer, startLiveHlsServer } from "../../../test/support/LiveHlsServer.ts"
import { type EgressProxy, startEgressProxy } from "../src/egress/EgressProxy.ts"
import { YtDlp } from "../src/ytdlp/YtDlp.ts"
import { downloadFlags } from "../src/ytdlp/YtDlpFlags.ts"
import { startExtractorHarness } from "./ExtractorHarness.ts"

let live: LiveHlsServer
let proxy: EgressProxy
let work: string

beforeAll(async () => {
  live = await startLiveHlsServer()
  proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(live.hostPort), async () => []))
  work = await mkdtemp(join(tmpdir(), "mds-live-stop-"))
}, 120_000)

afterAll(async () => {
  await proxy?.close()
  await live?.close()
  await rm(work, { recursive: true, force: true })
})

const durationOf = async (file: string) => {
  const { stdout } = await promisify(execFile)("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])
  return Number(stdout.trim())
}

describe.each(["off", "on"] as const)("a live recording stopped (YT_DLP_WARM_RUNNER=%s)", (warm) => {
  it("ends yt-dlp with exit 0 and a finished file of what was recorded, long before the stream ends", async () => {
    const harness = await startExtractorHarness({ EGRESS_ALLOW: live.hostPort, YT_DLP_WARM_RUNNER: warm })
    try {
      const dir = join(work, warm)
      const url = live.startStream(15)
      const ran = await harness.run(
        Effect.gen(function* () {
          const stop = yield* Deferred.make<void>()
          // Stop once the run announced the live stream and recorded a few seconds.
          let live = false
          const flags = { ...downloadFlags({ kind: "video", height: null }, dir, proxy.url, "ffmpeg") }
          const run = (yield* YtDlp).run(url, flags, {
            cwd: work,
            onLine: (line) => {
              if (line.includes('"is_live": true') && !live) {
                live = true
                setTimeout(() => Deferred.doneUnsafe(stop, Effect.void), 6_000)
              }
            },
            stopWhen: Deferred.await(stop)
          })
          return yield* run
        })
      )
      expect(ran.stdout).toContain("[mds-result]")
      const files = await readdir(dir)
      const media = files.find((name) => name.startsWith("media.") && !name.endsWith(".part"))
      expect(media, files.join(", ")).toBeDefined()
      const seconds = await durationOf(join(dir, media ?? ""))
      expect(seconds).toBeGreaterThan(3)
      // The stream lasts 30 s (15 segments of 2 s): a file this much shorter was stopped, not recorded to the end.
      expect(seconds).toBeLessThan(24)
    } finally {
      await harness.close()
    }
  }, 90_000)
})

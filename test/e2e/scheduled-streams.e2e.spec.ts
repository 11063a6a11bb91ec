// Extension, end to end: a scheduled stream through a yt-dlp plugin extractor kept in the test tree (YT_DLP_PLUGIN_DIRS):
// it resolves as upcoming, its download is scheduled and holds no slot (the project queues two downloads meanwhile),
// and once the test flips it live (a local HLS stream) the job goes scheduled -> queued -> processing -> completed. A
// download by url with no resolve before is queued, its run finds the stream not begun, and it waits the same way.
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

const STATE_DIR = "/tmp/mds-livestandin"
const STREAM = "e2epremiere"
const URL_STREAM = "e2eurlpremiere"
const PLUGINS = join(import.meta.dirname, "..", "..", "services", "extractor", "test", "ytdlp-plugins")

const e2e = useMediaStack({
  keys: 2,
  // Probes one to two seconds apart (the probe clamp's test values), not a minute to an hour.
  stack: () => ({ env: { YT_DLP_PLUGIN_DIRS: PLUGINS, LIVE_PROBE_MIN_SECONDS: "1", LIVE_PROBE_MAX_SECONDS: "2" } })
})

/** The stand-in stream's state, where its plugin reads it. */
const setStream = (state: { readonly live: boolean; readonly release: number; readonly hls: string }, stream = STREAM) => {
  mkdirSync(STATE_DIR, { recursive: true })
  writeFileSync(join(STATE_DIR, `${stream}.json`), JSON.stringify(state))
}
afterAll(() => {
  for (const stream of [STREAM, URL_STREAM]) rmSync(join(STATE_DIR, `${stream}.json`), { force: true })
})

/** The project of `key` queues two downloads: neither of its two slots is held. */
const twoDownloadsFit = async (key: string) => {
  for (const n of [1, 2]) {
    const other = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key,
      json: { url: e2e.media.urls.mp4, format: "video_best" }
    })
    expect(other.status, `download ${n}: ${e2e.context(other)}`).toBe(202)
  }
}

describe("a scheduled stream", () => {
  it("waits scheduled without a slot, then records once the stream began", async () => {
    const origin = new URL(e2e.media.urls.mp4).origin
    const release = Math.floor(Date.now() / 1000) + 3600
    setStream({ live: false, release, hls: e2e.media.urls.hls })

    const resolved = await e2e.api.resolve(`${origin}/standin-live/${STREAM}`)
    expect(resolved.status, e2e.context(resolved)).toBe(200)
    expect(resolved.body.data).toMatchObject({ live_status: "is_upcoming", release_at: new Date(release * 1000).toISOString() })

    const scheduled = await e2e.api.download({ media_id: resolved.body.data.id, format: "video_best" })
    expect(scheduled.status, e2e.context(scheduled)).toBe(202)
    expect(scheduled.body.data).toMatchObject({ status: "scheduled", starts_at: new Date(release * 1000).toISOString() })
    const jobId: string = scheduled.body.data.job_id

    // No slot held: the project's two slots take two downloads while the stream waits.
    await twoDownloadsFit(e2e.key)
    const waiting = await e2e.api.job(jobId)
    expect(waiting.body.data.status, e2e.context(waiting)).toBe("scheduled")

    setStream({ live: true, release, hls: e2e.media.urls.hls })
    const { job, snapshots } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs, timeoutMs: 180_000 })
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
    expect(job.starts_at).toBe(new Date(release * 1000).toISOString())
    expect(job.result.size_bytes).toBeGreaterThan(1000)
    const statuses = [...new Set(snapshots.map((s) => s.status))]
    expect(statuses[0]).toBe("scheduled")
    expect(statuses.at(-1)).toBe("completed")
  }, 240_000)

  it("a download by url, resolved by nobody, is queued; its run finds the stream not begun and the job waits without a slot", async () => {
    // A project of its own, so its slots are only this test's.
    const key = e2e.keyAt(1)
    const origin = new URL(e2e.media.urls.mp4).origin
    const release = Math.floor(Date.now() / 1000) + 3600
    setStream({ live: false, release, hls: e2e.media.urls.hls }, URL_STREAM)

    const queued = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key,
      json: { url: `${origin}/standin-live/${URL_STREAM}`, format: "video_best" }
    })
    expect(queued.status, e2e.context(queued)).toBe(202)
    expect(queued.body.data.status).toBe("queued")
    const jobId: string = queued.body.data.job_id

    const waiting = await eventually(
      () => apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key }),
      (response) => response.body?.data?.status === "scheduled",
      () => `the job to wait for its stream\n${e2e.stack.logs()}`,
      60_000,
      2_100
    )
    expect(waiting.body.data).toMatchObject({ status: "scheduled", starts_at: new Date(release * 1000).toISOString() })
    // A wait is no retry.
    expect(waiting.body.data.retries).toBeUndefined()
    // No slot held: the project's two slots take two downloads while the stream waits.
    await twoDownloadsFit(key)

    setStream({ live: true, release, hls: e2e.media.urls.hls }, URL_STREAM)
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, key, jobId, { logs: e2e.stack.logs, timeoutMs: 180_000 })
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
    expect(job.result.size_bytes).toBeGreaterThan(1000)
    expect(job.retries).toBeUndefined()
  }, 240_000)
})

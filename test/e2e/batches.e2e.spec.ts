// Extension end to end: a playlist downloaded as a batch, fed into the project's two slots, surviving a killed feeder.
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { podcastFeedEpisodes } from "../support/MediaServer.ts"
import { finishedEvent } from "../support/StackInspector.ts"
import { type ApiResponse, apiRequest } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack({ inspect: true })

const call = (method: string, path: string, json?: unknown) =>
  apiRequest(e2e.stack.baseUrl, method, path, json === undefined ? { key: e2e.key } : { key: e2e.key, json })

const resolvePlaylist = async (rate: number) => {
  const resolved = await call("POST", "/media/resolve", { url: `${e2e.media.urls.podcastFeed}?rate=${rate}`, playlist: {} })
  expect(resolved.status, e2e.context(resolved)).toBe(200)
  expect(resolved.body.data.entry_count).toBe(podcastFeedEpisodes)
  return resolved.body.data
}

const batchUntil = (batchId: string, done: (batch: any) => boolean, what: string, seen: Array<any> = [], timeoutMs = 120_000) =>
  eventually(
    async () => {
      const response = await call("GET", `/batches/${batchId}`)
      expect(response.status, e2e.context(response)).toBe(200)
      seen.push(response.body.data)
      return response.body.data
    },
    done,
    () => `batch ${batchId}: ${what}\n${e2e.stack.logs()}`,
    timeoutMs,
    300
  )

describe("batches", () => {
  it("feeds the entries into two slots as they free, and finishes even when the feeder is killed mid-batch", async () => {
    // About 4 s per episode: slow enough to see the slots full.
    const playlist = await resolvePlaylist(8192)
    const created = await call("POST", "/batches", { media_id: playlist.id, format: "audio_m4a" })
    expect(created.status, e2e.context(created)).toBe(202)
    const batchId = created.body.data.id
    expect(created.body.data).toMatchObject({ status: "running", format: "audio_m4a", progress: { total: podcastFeedEpisodes } })

    const seen: Array<any> = []
    await batchUntil(batchId, (b) => b.progress.queued === 2, "two entries queued", seen)
    // The project's limit holds: a third job of the project is refused while the batch holds both slots.
    const extra = await call("POST", "/media/download", { url: e2e.media.urls.audio, format: "audio_m4a" })
    expect(extra.status, e2e.context(extra)).toBe(429)

    // The feeder is down while both running jobs end: started again, it must notice the slots they freed.
    const running: ReadonlyArray<string> = seen.at(-1).entries.flatMap((e: any) => (e.job_id ? [e.job_id] : []))
    expect(running.length).toBeGreaterThanOrEqual(2)
    await e2e.stack.stopProcess("aggregator", "SIGKILL")
    await eventually(
      () => Promise.all(running.map(async (jobId) => finishedEvent(await e2e.inspector.jobEvents(e2e.projectId, jobId))?._tag)),
      (endings) => endings.every((tag) => tag === "JobCompleted"),
      "both running jobs completed while the feeder is down",
      60_000
    )
    await e2e.stack.startProcess("aggregator")

    const done = await batchUntil(batchId, (b) => b.status === "completed", "completion", seen)
    expect(done.progress).toEqual({ total: podcastFeedEpisodes, pending: 0, queued: 0, completed: podcastFeedEpisodes, failed: 0 })
    expect(seen.every((b) => b.progress.queued <= 2)).toBe(true)
    const jobIds = done.entries.map((e: any) => e.job_id)
    expect(new Set(jobIds).size).toBe(podcastFeedEpisodes)
    // Polled as often as the gateway lets one key poll one job.
    const job = await eventually(
      () => call("GET", `/jobs/${jobIds[2]}`),
      (r) => r.status !== 429,
      "an answered poll",
      5_000,
      300
    )
    expect(job.body.data).toMatchObject({ status: "completed", requested_format: "audio_m4a" })
    expectErrorCode(await call("DELETE", `/batches/${batchId}`), 409, "batch_already_finished")
  })

  it("a canceled batch starts nothing more and cancels its running jobs; unknown batches are 404", async () => {
    const playlist = await resolvePlaylist(2048)
    const created = await call("POST", "/batches", {
      media_id: playlist.id,
      format: "audio_m4a",
      entries: [playlist.entries[2].id, playlist.entries[0].id]
    })
    expect(created.status, e2e.context(created)).toBe(202)
    expect(created.body.data.entries.map((e: any) => e.title)).toEqual(["Episode 3", "Episode 1"])
    const batchId = created.body.data.id
    await batchUntil(batchId, (b) => b.progress.queued >= 1, "an entry queued")
    const canceled = await call("DELETE", `/batches/${batchId}`)
    expect(canceled.status, e2e.context(canceled)).toBe(200)
    expect(canceled.body.data.status).toBe("canceled")
    const settled = await batchUntil(batchId, (b) => b.progress.queued === 0, "the running jobs canceled")
    expect(settled.progress.completed).toBeLessThan(2)
    expect((await call("DELETE", `/batches/${batchId}`)).status).toBe(200)

    expectErrorCode(await call("GET", "/batches/bat_aaaaaaaaaaaaaaaaaaaaaaaa"), 404, "batch_not_found")
    expectErrorCode(
      await call("POST", "/batches", { media_id: playlist.id, format: "audio_m4a", entries: ["ent_nope"] }),
      422,
      "invalid_options"
    )
    expectErrorCode(await call("POST", "/batches", { media_id: playlist.id, format: "flac_best" }), 422, "format_unavailable")
  })
})

function expectErrorCode(response: ApiResponse, status: number, code: string) {
  expect(response.status, e2e.context(response)).toBe(status)
  expect(response.body.error.code).toBe(code)
  expect(response.body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/)
}

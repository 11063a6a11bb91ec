// Per-job limits (duration, size, time) and transient-failure retries, through the real extractor, yt-dlp and ffmpeg.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

let media: MediaServer
let strict: ExtractorHarness
let retrying: ExtractorHarness

beforeAll(async () => {
  media = await startMediaServer()
  ;[strict, retrying] = await Promise.all([
    // Small limits: the slow clip (2.6 MB) is too large, and 20 s are too short for a clip throttled to 50 s, yet
    // long enough for yt-dlp to announce a page's duration on a busy machine (8 s were not, with four suites at once
    // on two cores: the page's media_too_long came out as download_timeout).
    startExtractorHarness({
      EGRESS_ALLOW: media.hostPort,
      MAX_MEDIA_DURATION_SECONDS: "10",
      MAX_FILE_SIZE_MB: "1",
      DOWNLOAD_TIMEOUT_SECONDS: "20"
    }),
    startExtractorHarness({
      EGRESS_ALLOW: media.hostPort,
      MAX_MEDIA_DURATION_SECONDS: "10",
      DOWNLOAD_RETRIES: "2",
      DOWNLOAD_RETRY_BASE_SECONDS: "0.2"
    })
  ])
})

afterAll(async () => {
  await Promise.all([strict?.close(), retrying?.close()])
  await media?.close()
})

const failure = (events: ReadonlyArray<JobEvent>) => {
  const last = events.at(-1)
  if (last?._tag !== "JobFailed") throw new Error(`expected JobFailed, got ${JSON.stringify(events)}`)
  return last.error
}

const slotsAfter = async (h: ExtractorHarness, projectId: string) => {
  const last = await h.lastAdmission(projectId)
  return { tag: last._tag, held: last.held }
}

describe("limits per job", () => {
  it("a file larger than MAX_FILE_SIZE_MB fails with file_too_large as soon as its size is known, and frees the slot", async () => {
    const { projectId, jobId } = await strict.queueJob(media.urls.slow, "video_best")
    const events = await strict.waitForEnd(projectId, jobId)
    expect(failure(events)).toMatchObject({ code: "file_too_large", retryable: false })
    expect(failure(events).message).toContain("1.0 MB")
    // The 2.6 MB file is refused from its announced size, long before the 5 s the throttled transfer would take.
    expect(events.some((e) => e._tag === "JobProgressed" && e.percent > 50)).toBe(false)
    expect(await slotsAfter(strict, projectId)).toEqual({ tag: "SlotReleased", held: [] })
  })

  it("media announced longer than MAX_MEDIA_DURATION_SECONDS fails with media_too_long before anything is downloaded", async () => {
    const { projectId, jobId } = await strict.queueJob(`${media.urls.page}?duration=3600`, "video_best")
    const events = await strict.waitForEnd(projectId, jobId)
    const error = failure(events)
    expect(error).toMatchObject({ code: "media_too_long", retryable: false })
    expect(error.message).toContain("3600 s")
    expect(events.some((e) => e._tag === "JobProgressed")).toBe(false)
  })

  it("a direct file without an announced duration is measured after the download: media_too_long", async () => {
    const { projectId, jobId } = await retrying.queueJob(media.urls.slow, "audio_m4a")
    const error = failure(await retrying.waitForEnd(projectId, jobId))
    expect(error).toMatchObject({ code: "media_too_long", retryable: false })
    expect(error.message).toContain("20 s")
  })

  it("a download over DOWNLOAD_TIMEOUT_SECONDS fails with download_timeout (retryable) and leaves no work directory", async () => {
    const { projectId, jobId } = await strict.queueJob(`${media.urls.mp4}?rate=2000`, "video_best")
    const error = failure(await strict.waitForEnd(projectId, jobId))
    expect(error).toMatchObject({ code: "download_timeout", retryable: true })
    const left = await readdir(`${strict.dataDir}/work`).catch(() => [])
    expect(left.filter((name) => name.startsWith(jobId))).toEqual([])
  })
})

/** Queues a job as the gateway does when the project's byte quota leaves `quotaBytesLeft` bytes this month. */
const queueWithQuota = (h: ExtractorHarness, url: string, quotaBytesLeft: number) =>
  h.queueJob(url, "video_best", undefined, "generic", undefined, undefined, quotaBytesLeft)

describe("the project's monthly byte quota", () => {
  it("a file that would cross what the quota leaves fails quota_exceeded (not retryable), stores nothing, counts no bytes", async () => {
    const { projectId, jobId } = await queueWithQuota(retrying, media.urls.slow, 1024 * 1024)
    const events = await retrying.waitForEnd(projectId, jobId)
    const error = failure(events)
    expect(error).toMatchObject({ code: "quota_exceeded", retryable: false })
    expect(error.message).toContain("1.0 MB left")
    // Refused from its announced size, before the throttled transfer got far.
    expect(events.some((e) => e._tag === "JobProgressed" && e.percent > 50)).toBe(false)
    const stored = await readdir(join(retrying.dataDir, "artifacts", "files", "jobs", projectId)).catch(() => [])
    expect(stored).toEqual([])
    const released = await retrying.lastAdmission(projectId)
    expect(released).toMatchObject({ _tag: "SlotReleased", reason: "failed", held: [] })
    expect(released._tag === "SlotReleased" && released.bytes).toBeFalsy()
  })

  it("a file within what is left completes, and its slot's release counts its bytes toward the month", async () => {
    const { projectId, jobId } = await queueWithQuota(retrying, media.urls.mp4, 50 * 1024 * 1024)
    const events = await retrying.waitForEnd(projectId, jobId)
    const done = events.at(-1)
    expect(done?._tag, JSON.stringify(events)).toBe("JobCompleted")
    const size = done?._tag === "JobCompleted" ? done.artifact.sizeBytes : -1
    const released = await retrying.lastAdmission(projectId)
    expect(released).toMatchObject({ _tag: "SlotReleased", reason: "completed", bytes: size })
    expect(released.usage).toMatchObject({ jobs: 1, bytes: size })
  })
})

describe("transient and permanent failures", () => {
  it("a platform answering 503 twice is retried with backoff inside the job, which completes", async () => {
    const url = media.urls.flaky("twice", 2)
    const { projectId, jobId } = await retrying.queueJob(url, "video_best")
    const events = await retrying.waitForEnd(projectId, jobId)
    expect(events.at(-1)?._tag, JSON.stringify(events)).toBe("JobCompleted")
    expect(media.requestCount(url)).toBeGreaterThanOrEqual(3)
    // One start: the retries happen inside the run, not by redelivering the job.
    expect(events.filter((e) => e._tag === "JobStarted")).toHaveLength(1)
  })

  it("a platform that keeps answering 429 fails the job after the retries, as download_failed and retryable", async () => {
    const url = media.urls.flaky("always", 1000, 429)
    const { projectId, jobId } = await retrying.queueJob(url, "audio_best")
    const error = failure(await retrying.waitForEnd(projectId, jobId))
    expect(error).toMatchObject({ code: "download_failed", retryable: true })
    expect(error.message).toContain("429")
    expect(error.message).toContain("tried 3 times")
    expect(media.requestCount(url)).toBe(3)
  })

  it("a removed media fails at once (media_unavailable, not retryable) after a single request", async () => {
    const url = `${media.urls.gone}?once`
    const { projectId, jobId } = await retrying.queueJob(url, "video_best")
    expect(failure(await retrying.waitForEnd(projectId, jobId))).toMatchObject({ code: "media_unavailable", retryable: false })
    expect(media.requestCount(url)).toBe(1)
  })
})

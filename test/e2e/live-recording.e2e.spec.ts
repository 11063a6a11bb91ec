// End to end: live recording of a live HLS stand-in (a playlist that grows by a 2 s segment every 2 s): recorded until
// the stream ends, stopped by a client (the file is kept), capped by max_duration or by the project's byte quota, one recording per project at once,
// and a recording whose extractor is killed (-9) mid-recording completes partial from the parts it kept, never stuck.
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { type LiveHlsServer, startLiveHlsServer } from "../support/LiveHlsServer.ts"
import { REPO_ROOT } from "../support/ServiceStack.ts"
import { type ApiResponse, apiRequest } from "./ApiClient.ts"
import { fetchFile, probeBytes } from "./MediaProbe.ts"

const CLI = join(REPO_ROOT, "packages", "client", "src", "cli", "main.ts")
import { useMediaStack } from "./MediaStack.ts"

let live: LiveHlsServer | undefined
const liveServer = () => {
  if (live === undefined) throw new Error("the live stand-in is not started")
  return live
}

// Before the stack's own hook (hooks run in order): the stack's EGRESS_ALLOW names the stand-in.
beforeAll(async () => {
  live = await startLiveHlsServer()
}, 120_000)
afterAll(async () => {
  await live?.close()
})

const e2e = useMediaStack({
  stack: (media) => ({
    env: {
      EGRESS_ALLOW: `${media.hostPort},${liveServer().hostPort}`,
      JOB_AUTO_RETRIES: "0",
      DOWNLOAD_RETRIES: "0",
      API_MIN_POLL_INTERVAL_SECONDS: "0",
      // A killed extractor's job is run again soon after its restart.
      WORK_ACK_WAIT_SECONDS: "4",
      LIVE_RECORDINGS_PER_PROJECT: "1"
    }
  }),
  keys: 2
})

const jobIdOf = (response: ApiResponse) => {
  expect(response.status, e2e.context(response)).toBe(202)
  return response.body.data.job_id as string
}

const untilJob = (jobId: string, done: (job: any) => boolean, what: string, timeoutMs = 45_000, key = e2e.key) =>
  eventually(
    () => apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key }),
    (response) => response.status === 200 && done(response.body.data),
    () => `${what}\n${e2e.stack.logs()}`,
    timeoutMs
  ).then((response) => response.body.data)

const recordedSeconds = async (downloadUrl: string) => {
  const file = await fetchFile(downloadUrl)
  expect(file.status).toBe(200)
  return (await probeBytes(file.bytes, ".mp4")).durationSeconds
}

const stop = (jobId: string, key = e2e.key) => apiRequest(e2e.stack.baseUrl, "POST", `/jobs/${jobId}/stop`, { key })

describe("live recording", () => {
  it("records a live stream until it ends: processing with seconds and bytes while it records, then completed with the file", async () => {
    const jobId = jobIdOf(await e2e.api.download({ url: liveServer().startStream(6), format: "video_best" }))
    const recording = await untilJob(jobId, (job) => (job.recording?.bytes ?? 0) > 0, "the recording to report bytes")
    expect(recording).toMatchObject({ status: "processing", progress: 0, recording: { ended: null, stop_requested: false } })
    const done = await untilJob(jobId, (job) => job.status !== "processing", "the recording to end with the stream")
    expect(done, JSON.stringify(done)).toMatchObject({ status: "completed", recording: { ended: "stream_ended" } })
    expect(await recordedSeconds(done.result.download_url)).toBeGreaterThan(4)
  })

  it("a client stops a recording: 202, and the job completes with what was recorded (shorter than the stream)", async () => {
    const jobId = jobIdOf(await e2e.api.download({ url: liveServer().startStream(15), format: "video_best" }))
    await untilJob(jobId, (job) => (job.recording?.seconds ?? 0) >= 4, "4 s recorded")
    const stopped = await stop(jobId)
    expect(stopped.status, e2e.context(stopped)).toBe(202)
    expect(stopped.body.data).toMatchObject({ status: "processing", recording: { stop_requested: true } })
    // Stopping twice answers the same again; another project's job is not found.
    expect((await stop(jobId)).status).toBe(202)
    expect((await stop(jobId, e2e.keyAt(1))).body.error?.code).toBe("job_not_found")
    const done = await untilJob(jobId, (job) => job.status !== "processing", "the stopped recording to complete")
    expect(done, JSON.stringify(done)).toMatchObject({ status: "completed", recording: { ended: "stopped" } })
    const seconds = await recordedSeconds(done.result.download_url)
    expect(seconds).toBeGreaterThan(2)
    expect(seconds).toBeLessThan(24)
    // A completed job is not recording any more.
    expect((await stop(jobId)).body.error?.code).toBe("job_not_live")
  })

  it("max_duration ends a recording after about that many seconds", async () => {
    const jobId = jobIdOf(
      await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
        key: e2e.key,
        json: { url: liveServer().startStream(15), format: "video_best", max_duration: 5 }
      })
    )
    const done = await untilJob(jobId, (job) => job.status !== "processing" && job.status !== "queued", "the capped recording to end")
    expect(done, JSON.stringify(done)).toMatchObject({ status: "completed", recording: { ended: "max_duration", max_duration: 5 } })
    // Well short of the 30 s stream: ended by max_duration, not by the stream's end.
    expect(await recordedSeconds(done.result.download_url)).toBeLessThan(16)
  })

  it("a recording ends size_limit at the project's byte quota: completed with a file about the cap, not failed", async () => {
    // A project of its own with a 200 KB monthly byte quota (the stand-in's stream is about 30 KB/s: 7 s of it).
    const { projectId, key } = await e2e.stack.provisionKey()
    const cap = 200 * 1024
    await e2e.stack.cli(["project", "quota", projectId, "--bytes-per-month", "200KB"])
    const jobId = jobIdOf(
      await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
        key,
        json: { url: liveServer().startStream(15), format: "video_best" }
      })
    )
    const done = await untilJob(
      jobId,
      (job) => job.status !== "processing" && job.status !== "queued",
      "the recording to reach its cap",
      45_000,
      key
    )
    expect(done, JSON.stringify(done)).toMatchObject({ status: "completed", recording: { ended: "size_limit" } })
    // A file about the cap, far short of the 30 s stream's (yt-dlp's ffmpeg writes its file 256 KiB at a time, and what
    // it holds when it is ended is written too).
    const file = await fetchFile(done.result.download_url)
    expect(file.status).toBe(200)
    expect(file.bytes.length).toBeGreaterThan(cap / 2)
    expect(file.bytes.length).toBeLessThan(cap + 150 * 1024)
    expect((await probeBytes(file.bytes, ".mp4")).durationSeconds).toBeGreaterThan(2)
  })

  it("stop of a job that is not live is 409 job_not_live; live_from_start is 422 invalid_options", async () => {
    const jobId = jobIdOf(await e2e.api.download({ url: e2e.media.urls.mp4, format: "video_best" }))
    await untilJob(jobId, (job) => job.status === "completed", "the plain download to complete")
    const refused = await stop(jobId)
    expect([refused.status, refused.body.error?.code], e2e.context(refused)).toEqual([409, "job_not_live"])
    const fromStart = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: e2e.key,
      json: { url: liveServer().startStream(3), format: "video_best", live_from_start: true }
    })
    expect([fromStart.status, fromStart.body.error?.code], e2e.context(fromStart)).toEqual([422, "invalid_options"])
  })

  it("a second recording of the project fails live_recordings_exceeded (retryable); the project still downloads", async () => {
    const first = jobIdOf(await e2e.api.download({ url: liveServer().startStream(15), format: "video_best" }))
    await untilJob(first, (job) => job.recording !== undefined, "the first recording to start")
    const second = jobIdOf(await e2e.api.download({ url: liveServer().startStream(15), format: "video_best" }))
    const refused = await untilJob(second, (job) => job.status === "failed", "the second recording to be refused")
    expect(refused.error, JSON.stringify(refused)).toMatchObject({ code: "live_recordings_exceeded", retryable: true })
    const plain = jobIdOf(await e2e.api.download({ url: e2e.media.urls.mp4, format: "video_best" }))
    await untilJob(plain, (job) => job.status === "completed", "a plain download beside the recording")
    expect((await stop(first)).status).toBe(202)
    await untilJob(first, (job) => job.status === "completed", "the first recording to complete")
  })

  it("mds download shows the recorded duration while it records and saves the file; mds stop of a finished job exits 1", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mds-live-cli-"))
    try {
      const env = { PATH: process.env["PATH"] ?? "", HOME: dir, MDS_URL: e2e.stack.baseUrl.replace(/\/v1$/, ""), MDS_API_KEY: e2e.key }
      const url = liveServer().startStream(15)
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        [CLI, "download", url, "--format", "video_best", "--progress", "plain", "--max-duration", "4", "-o", "live.mp4", "--json"],
        { cwd: dir, env, timeout: 60_000 }
      )
      expect(stderr).toMatch(/^recording \d+:\d\d recorded, \d/m)
      const { job, path } = JSON.parse(stdout)
      expect(job.recording.ended).toBe("max_duration")
      expect((await probeBytes(await readFile(path), ".mp4")).durationSeconds).toBeGreaterThan(2)
      const refused = await promisify(execFile)(process.execPath, [CLI, "stop", job.id], { cwd: dir, env }).catch((error) => error)
      expect(refused.code).toBe(1)
      expect(String(refused.stderr)).toContain("job_not_live")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("an extractor killed (-9) mid-recording: the next run completes the job partial (worker_lost) with what was kept", async () => {
    const jobId = jobIdOf(await e2e.api.download({ url: liveServer().startStream(15), format: "video_best" }))
    // Parts are kept every 4 s of what yt-dlp's ffmpeg flushed to its file (256 KiB at a time, about 8 s of the stand-in).
    const before = await untilJob(jobId, (job) => (job.recording?.seconds ?? 0) >= 16, "the recording to be under way")
    await e2e.stack.stopProcess("extractor", "SIGKILL")
    const killedAt = Date.now()
    const recordedSeconds = before.recording.seconds + Math.ceil((Date.now() - killedAt) / 1000) + 2
    await e2e.stack.startProcess("extractor")
    const done = await untilJob(jobId, (job) => job.status !== "processing", "the lost recording to complete from its parts", 60_000)
    expect(done, JSON.stringify(done)).toMatchObject({
      status: "completed",
      partial: true,
      partial_reason: "worker_lost",
      recording: { ended: "worker_lost" }
    })
    const file = await fetchFile(done.result.download_url)
    expect(file.status).toBe(200)
    // About what was recorded before the kill (the parts lag it by at most one keeping round; ffmpeg starts a live HLS
    // stream a few segments behind its edge, so the file may hold a little more than the wall clock).
    const seconds = (await probeBytes(file.bytes, ".mp4")).durationSeconds ?? 0
    expect(seconds).toBeGreaterThan(4)
    expect(seconds).toBeLessThan(recordedSeconds + 8)
  })
})

// End to end: lifetimes: resolved media, jobs and download links expire, and expired jobs give their slot back.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiFor, describeResponse } from "./ApiClient.ts"
import { pollJobUntil } from "./JobPolling.ts"
import { fetchFile } from "./MediaProbe.ts"

// Short, but long enough that a small local clip is resolved and downloaded well inside them on two busy cores (a
// download by url, ffprobe's check of the file and the projection took 7.5 s on a machine at load average 12), and
// that a link is fetched before it expires once the job reads completed (at 3 s, a full run on two cores saw the
// completed read and the fetch come after the link's expiry). The link expires well before the job's lifetime ends.
const MEDIA_TTL_S = 5
const JOB_TTL_S = 20
const LINK_TTL_S = 6

let media: MediaServer
let stack: ServiceStack

// Fixed waits, on purpose: the lifetimes run on the clocks of the service processes, which no TestClock reaches, and
// asking early would change what is asked about (a download by media id queues a job while the id is valid).
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const sleepUntil = async (epochMs: number) => sleep(Math.max(0, epochMs - Date.now()))

beforeAll(async () => {
  // So slow that the slow clip is still downloading when its job's lifetime ends.
  media = await startMediaServer({ throttleBytesPerSecond: 48 * 1024 })
  stack = await startServiceStack({
    env: {
      EGRESS_ALLOW: media.hostPort,
      API_MEDIA_RESOLVE_TTL_SECONDS: String(MEDIA_TTL_S),
      API_JOB_TTL_SECONDS: String(JOB_TTL_S),
      API_DOWNLOAD_URL_TTL_SECONDS: String(LINK_TTL_S)
    }
  })
})

afterAll(async () => {
  await stack?.close()
  await media?.close()
})

const context = (response: ApiResponse) => `${describeResponse(response)}\n${stack.logs()}`

describe("lifetimes", () => {
  it("a resolved media id expires -> media_not_found, and resolving again gives a fresh id", async () => {
    const { key } = await stack.provisionKey()
    const api = apiFor(stack.baseUrl, key)
    const resolved = await api.resolve(media.urls.silentMp4)
    expect(resolved.status, context(resolved)).toBe(200)
    const mediaId: string = resolved.body.data.id
    const resolvedAt = Date.now()

    const fresh = await api.download({ media_id: mediaId, format: "video_best" })
    expect(fresh.status, `still valid right after resolving: ${context(fresh)}`).toBe(202)

    await sleepUntil(resolvedAt + MEDIA_TTL_S * 1000 + 1500)
    const stale = await api.download({ media_id: mediaId, format: "video_best" })
    expect(stale.status, context(stale)).toBe(404)
    expect(stale.body.error.code).toBe("media_not_found")

    const again = await api.resolve(media.urls.silentMp4)
    expect(again.status, context(again)).toBe(200)
    expect(again.body.data.id).not.toBe(mediaId)
  })

  it("a download link stops working after expires_at, and the job after its lifetime", async () => {
    const { key } = await stack.provisionKey()
    const api = apiFor(stack.baseUrl, key)
    const queued = await api.download({ url: media.urls.mp4, format: "video_best" })
    expect(queued.status, context(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id
    const queuedAt = Date.now()

    const completed = await pollJobUntil(
      stack.baseUrl,
      key,
      jobId,
      (r) => r.status !== 200 || (r.body.data.status !== "queued" && r.body.data.status !== "processing"),
      {
        timeoutMs: JOB_TTL_S * 1000,
        logs: stack.logs
      }
    )
    expect(completed.status, context(completed)).toBe(200)
    const job = completed.body.data
    expect(job.status, context(completed)).toBe("completed")
    const expiresAt = Date.parse(job.result.expires_at)
    const completedAt = Date.parse(job.completed_at)
    // The link lives API_DOWNLOAD_URL_TTL_SECONDS from completion (a second of slack for rounding to whole seconds).
    expect(Math.abs(expiresAt - completedAt - LINK_TTL_S * 1000), `${job.completed_at} -> ${job.result.expires_at}`).toBeLessThanOrEqual(
      1500
    )

    const before = await fetchFile(job.result.download_url)
    expect(before.status, `link before expiry: ${before.bytes.toString().slice(0, 300)}`).toBe(200)
    expect(before.bytes.length).toBe(job.result.size_bytes)

    await sleepUntil(expiresAt + 1500)
    const after = await fetchFile(job.result.download_url)
    expect(after.status, `link after expiry: ${after.bytes.toString().slice(0, 300)}`).toBe(410)
    expect(JSON.parse(after.bytes.toString()).error.code).toBe("link_expired")

    await sleepUntil(queuedAt + JOB_TTL_S * 1000 + 1500)
    const gone = await api.job(jobId)
    expect(gone.status, context(gone)).toBe(404)
    expect(gone.body.error.code).toBe("job_not_found")
  })

  it("jobs still processing at the end of their lifetime expire and free their slots", async () => {
    const { key } = await stack.provisionKey()
    const api = apiFor(stack.baseUrl, key)
    const slow = { url: media.urls.slow, format: "video_best" }
    const first = await api.download(slow)
    const second = await api.download(slow)
    const queuedAt = Date.now()
    expect(first.status, context(first)).toBe(202)
    expect(second.status, context(second)).toBe(202)
    const full = await api.download(slow)
    expect(full.status, context(full)).toBe(429)
    expect(full.body.error.code).toBe("concurrency_limit_exceeded")

    // At 48 KiB/s the clip needs about a minute: the jobs cannot finish before they expire.
    const running = await pollJobUntil(
      stack.baseUrl,
      key,
      first.body.data.job_id,
      (r) => r.status === 200 && r.body.data.status === "processing",
      {
        timeoutMs: JOB_TTL_S * 1000,
        logs: stack.logs
      }
    )
    expect(running.body.data.status).toBe("processing")

    await sleepUntil(queuedAt + JOB_TTL_S * 1000 + 1500)
    for (const response of [first, second]) {
      const expired = await api.job(response.body.data.job_id)
      expect(expired.status, context(expired)).toBe(404)
      expect(expired.body.error.code).toBe("job_not_found")
    }
    const afterExpiry = await api.download(slow)
    expect(afterExpiry.status, `a slot should be free again: ${context(afterExpiry)}`).toBe(202)
  })
})

// End to end: resolve real media from a local server, download it through jobs, and fetch and probe the artifacts.
import { describe, expect, it } from "vitest"
import { fixtureFacts } from "../support/MediaFixtures.ts"
import { clipPage } from "../support/MediaServer.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { fetchFile, probeBytes } from "./MediaProbe.ts"
import { useMediaStack } from "./MediaStack.ts"

const FORMAT_ID = /^(video_best|video_[1-9][0-9]{1,3}p|audio_best|audio_mp3|audio_m4a)$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

// Slow enough that a 2 s poll sees the slow clip mid-download.
const e2e = useMediaStack({ throttleBytesPerSecond: 256 * 1024, keys: 2 })

const resolveOk = async (url: string) => {
  const response = await e2e.api.resolve(url)
  expect(response.status, e2e.context(response)).toBe(200)
  return response.body.data
}

const expectResolvedShape = (data: any) => {
  expect(data.id).toMatch(/^med_[a-z2-7]{24}$/)
  expect(data.platform).toBe("generic")
  expect(["video", "audio"]).toContain(data.type)
  expect(typeof data.title).toBe("string")
  expect(data.title.length).toBeGreaterThan(0)
  expect(typeof data.thumbnail).toBe("string")
  expect(URL.canParse(data.thumbnail), `thumbnail of ${JSON.stringify(data)}`).toBe(true)
  expect(Number.isInteger(data.duration), `duration ${data.duration}`).toBe(true)
  expect(typeof data.author?.name).toBe("string")
  expect(typeof data.author?.username).toBe("string")
  expect(Array.isArray(data.formats)).toBe(true)
  for (const format of data.formats) {
    expect(format.id).toMatch(FORMAT_ID)
    for (const field of ["type", "quality", "container"]) expect(typeof format[field], `${format.id}.${field}`).toBe("string")
  }
  expect(new Set(data.formats.map((f: any) => f.id)).size).toBe(data.formats.length)
}

/** Queues a download and checks the 202 body and read-your-writes on GET /jobs right after it. */
const queue = async (body: Readonly<Record<string, string>>) => {
  const response = await e2e.api.download(body)
  expect(response.status, e2e.context(response)).toBe(202)
  expect(response.body.data.job_id).toMatch(/^job_[a-z2-7]{24}$/)
  expect(response.body.data.status).toBe("queued")
  const jobId: string = response.body.data.job_id
  const immediately = await e2e.api.job(jobId)
  expect(immediately.status, `read-your-writes: ${e2e.context(immediately)}`).toBe(200)
  expect(["queued", "processing", "completed"]).toContain(immediately.body.data.status)
  expect(immediately.body.data.id).toBe(jobId)
  expect(immediately.body.data.requested_format).toBe(body["format"])
  return jobId
}

/** Polls to the end and checks everything the spec says about a completed job. */
const expectCompleted = async (jobId: string, format: string) => {
  const { job, snapshots } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
  const seen = snapshots.map((s) => `${s.status}:${s.progress}`).join(" ")
  expect(job.status, `job ${jobId} ended ${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
  const progress = snapshots.map((s) => s.progress)
  for (const value of progress) {
    expect(Number.isInteger(value), seen).toBe(true)
    expect(value, seen).toBeGreaterThanOrEqual(0)
    expect(value, seen).toBeLessThanOrEqual(100)
  }
  for (let i = 1; i < progress.length; i++) expect(progress[i], `progress went back: ${seen}`).toBeGreaterThanOrEqual(progress[i - 1])
  expect(job.progress).toBe(100)
  expect(job.id).toBe(jobId)
  expect(job.platform).toBe("generic")
  expect(job.requested_format).toBe(format)
  for (const field of ["created_at", "started_at", "completed_at"]) expect(job[field], field).toMatch(ISO_DATE)
  const created = Date.parse(job.created_at)
  const started = Date.parse(job.started_at)
  const completed = Date.parse(job.completed_at)
  expect(started).toBeGreaterThanOrEqual(created)
  expect(completed).toBeGreaterThanOrEqual(started)
  expect(job.error).toBeUndefined()
  const result = job.result
  expect(typeof result.download_url).toBe("string")
  expect(URL.canParse(result.download_url), result.download_url).toBe(true)
  expect(typeof result.filename).toBe("string")
  expect(result.filename).not.toMatch(/[/\\\u0000-\u001f]/)
  expect(typeof result.mime_type).toBe("string")
  expect(Number.isInteger(result.size_bytes)).toBe(true)
  expect(result.size_bytes).toBeGreaterThan(1000)
  expect(result.expires_at).toMatch(ISO_DATE)
  expect(Date.parse(result.expires_at)).toBeGreaterThan(Date.now())
  return { job, snapshots }
}

/** Fetches the artifact, checks size and headers against the job result, and probes it. */
const fetchArtifact = async (result: any, extension: string) => {
  expect(result.filename.toLowerCase().endsWith(extension), result.filename).toBe(true)
  const file = await fetchFile(result.download_url)
  expect(file.status, `GET ${result.download_url}: ${file.status} ${file.bytes.subarray(0, 300).toString()}`).toBe(200)
  expect(file.bytes.length).toBe(result.size_bytes)
  expect((file.headers.get("content-type") ?? "").split(";")[0]?.trim()).toBe(result.mime_type)
  expect(file.headers.get("content-disposition") ?? "").toMatch(/attachment/)
  const head = await fetchFile(result.download_url, "HEAD")
  expect(head.status).toBe(200)
  expect(head.headers.get("content-length")).toBe(String(result.size_bytes))
  return probeBytes(file.bytes, extension)
}

describe("resolve", () => {
  it("a direct mp4: every field, probed duration, video and audio formats", async () => {
    const data = await resolveOk(e2e.media.urls.mp4)
    expectResolvedShape(data)
    expect(data.type).toBe("video")
    expect(data.duration).toBeGreaterThanOrEqual(fixtureFacts.clipSeconds - 1)
    expect(data.duration).toBeLessThanOrEqual(fixtureFacts.clipSeconds + 1)
    const ids = data.formats.map((f: any) => f.id)
    expect(ids).toContain("video_best")
    expect(ids).toEqual(expect.arrayContaining(["audio_best", "audio_mp3", "audio_m4a"]))
    const thumbnail = await fetchFile(data.thumbnail)
    expect(thumbnail.status, `thumbnail ${data.thumbnail}`).toBe(200)
    expect(thumbnail.headers.get("content-type") ?? "").toMatch(/^image\//)
  })

  it("a video without sound offers no audio formats", async () => {
    const data = await resolveOk(e2e.media.urls.silentMp4)
    expectResolvedShape(data)
    const ids: Array<string> = data.formats.map((f: any) => f.id)
    expect(ids).toContain("video_best")
    expect(
      ids.filter((id) => id.startsWith("audio_")),
      JSON.stringify(ids)
    ).toEqual([])
  })

  it("an HTML5 page with JSON-LD: title and author from the page metadata", async () => {
    const data = await resolveOk(e2e.media.urls.page)
    expectResolvedShape(data)
    expect(data.title).toBe(clipPage.title)
    expect(data.author.name, JSON.stringify(data.author)).toBe(clipPage.author)
    expect(data.duration).toBeGreaterThanOrEqual(clipPage.durationSeconds - 1)
    expect(data.duration).toBeLessThanOrEqual(clipPage.durationSeconds + 1)
    expect(data.formats.map((f: any) => f.id)).toContain("video_best")
  })

  it("an HLS playlist: one format id per height", async () => {
    const data = await resolveOk(e2e.media.urls.hls)
    expectResolvedShape(data)
    const ids = data.formats.map((f: any) => f.id)
    expect(ids).toEqual(expect.arrayContaining(["video_best", "video_240p", "video_360p"]))
  })

  it.each([
    ["404", () => e2e.media.urls.notFound],
    ["410", () => e2e.media.urls.gone]
  ])("a %s URL -> 422 media_unavailable", async (_, url) => {
    const response = await e2e.api.resolve(url())
    expect(response.status, e2e.context(response)).toBe(422)
    expect(response.body.error.code).toBe("media_unavailable")
    expect(response.body.error.request_id).toBe(response.headers.get("x-request-id"))
  })

  it("a redirect from an allowed host to a private address is refused", async () => {
    const response = await e2e.api.resolve(e2e.media.urls.redirectTo("http://10.255.255.1/x.mp4"))
    expect(response.body?.error?.code, e2e.context(response)).toBe("url_not_allowed")
    expect(response.status).toBe(422)
  })
})

describe("download", () => {
  it("by media_id in video_best and audio_mp3: real mp4 video and mp3 audio", async () => {
    const resolved = await resolveOk(e2e.media.urls.mp4)
    const videoJob = await queue({ media_id: resolved.id, format: "video_best" })
    const audioJob = await queue({ media_id: resolved.id, format: "audio_mp3" })

    const video = await expectCompleted(videoJob, "video_best")
    const videoProbe = await fetchArtifact(video.job.result, ".mp4")
    expect(video.job.result.mime_type).toBe("video/mp4")
    expect(videoProbe.codecTypes).toContain("video")
    expect(videoProbe.codecTypes).toContain("audio")
    expect(videoProbe.durationSeconds).toBeGreaterThan(fixtureFacts.clipSeconds - 1)

    const audio = await expectCompleted(audioJob, "audio_mp3")
    const audioProbe = await fetchArtifact(audio.job.result, ".mp3")
    expect(audio.job.result.mime_type).toBe("audio/mpeg")
    expect(audioProbe.codecTypes).toEqual(["audio"])
    expect(audioProbe.codecNames).toEqual(["mp3"])
  })

  it("an unknown format for a resolved media -> 422 format_unavailable listing the ids", async () => {
    const resolved = await resolveOk(e2e.media.urls.silentMp4)
    const response = await e2e.api.download({ media_id: resolved.id, format: "audio_mp3" })
    expect(response.status, e2e.context(response)).toBe(422)
    expect(response.body.error.code).toBe("format_unavailable")
    expect(response.body.error.message).toMatch(/video_best/)
  })

  it("by url directly, without resolving first", async () => {
    const jobId = await queue({ url: e2e.media.urls.audio, format: "audio_m4a" })
    const { job } = await expectCompleted(jobId, "audio_m4a")
    const probe = await fetchArtifact(job.result, ".m4a")
    expect(probe.codecTypes).toEqual(["audio"])
    expect(probe.codecNames).toEqual(["aac"])
  })

  it("a job is invisible to another project's key", async () => {
    const jobId = await queue({ url: e2e.media.urls.mp4, format: "video_best" })
    const foreign = await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key: e2e.keyAt(1) })
    expect(foreign.status, e2e.context(foreign)).toBe(404)
    expect(foreign.body.error.code).toBe("job_not_found")
    await expectCompleted(jobId, "video_best")
  })

  it("the slow clip shows progress strictly between 0 and 100 while processing", async () => {
    const jobId = await queue({ url: e2e.media.urls.slow, format: "video_best" })
    const { snapshots } = await expectCompleted(jobId, "video_best")
    const midway = snapshots.filter((s) => s.status === "processing" && s.progress > 0 && s.progress < 100)
    expect(midway.length, snapshots.map((s) => `${s.status}:${s.progress}`).join(" ")).toBeGreaterThan(0)
  })

  it("a job whose media has gone fails with an error object and no result", async () => {
    const jobId = await queue({ url: e2e.media.urls.gone, format: "video_best" })
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(job.status, JSON.stringify(job)).toBe("failed")
    expect(typeof job.error.code).toBe("string")
    expect(job.error.code).toBe("media_unavailable")
    expect(typeof job.error.message).toBe("string")
    expect(job.error.request_id).toBeUndefined()
    expect(job.result).toBeUndefined()
    expect(job.completed_at).toMatch(ISO_DATE)
  })

  it("a tampered download link is refused", async () => {
    const jobId = await queue({ url: e2e.media.urls.mp4, format: "video_best" })
    const { job } = await expectCompleted(jobId, "video_best")
    const link = new URL(job.result.download_url)
    const signature = link.searchParams.get("signature") ?? ""
    expect(signature.length, link.href).toBeGreaterThan(0)

    const badSignature = new URL(link)
    badSignature.searchParams.set("signature", `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`)
    const laterExpiry = new URL(link)
    laterExpiry.searchParams.set("expires", String(Number(link.searchParams.get("expires")) + 3600))
    const unsigned = new URL(link)
    unsigned.search = ""
    const otherPath = new URL(link)
    otherPath.pathname = otherPath.pathname.replace(/[^/]+$/, "other.mp4")

    for (const tampered of [badSignature, laterExpiry, otherPath]) {
      const file = await fetchFile(tampered.href)
      expect(file.status, `${tampered.href}: ${file.bytes.toString().slice(0, 300)}`).toBe(403)
      expect(JSON.parse(file.bytes.toString()).error.code).toBe("invalid_signature")
    }
    // Without any signature the request is malformed or forbidden, never served.
    const bare = await fetchFile(unsigned.href)
    expect([400, 403], `${unsigned.href}: ${bare.status}`).toContain(bare.status)
    const genuine = await fetchFile(link.href)
    expect(genuine.status).toBe(200)
  })
})

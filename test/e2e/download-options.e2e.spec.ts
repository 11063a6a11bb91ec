// The download extensions end to end on the running stack: clips (and, below, cancel), checked with ffprobe.
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { clipPage, podcastFeedEpisodes, subtitleCues } from "../support/MediaServer.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntil, pollJobUntilFinished } from "./JobPolling.ts"
import { fetchFile, probeBytes } from "./MediaProbe.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack()

const download = (body: Record<string, unknown>) => apiRequest(e2e.stack.baseUrl, "POST", "/media/download", { key: e2e.key, json: body })

const expectError = (response: ApiResponse, status: number, code: string) => {
  expect(response.status, e2e.context(response)).toBe(status)
  expect(response.body.error.code).toBe(code)
  expect(response.body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/)
  expect(response.body.error.request_id).toBe(response.headers.get("x-request-id"))
}

/** Queues, waits for the end, and returns the completed job and its file's bytes. */
const completedDownloadOf = async (body: Record<string, unknown>) => {
  // A job an earlier test canceled mid-run holds its slot until its worker stopped the run: 429 until then, as for a client.
  const queued = await eventually(
    () => download(body),
    (answer) => answer.status !== 429,
    "a free slot for the project",
    60_000,
    500
  )
  expect(queued.status, e2e.context(queued)).toBe(202)
  const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, queued.body.data.job_id, { logs: e2e.stack.logs })
  expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
  const file = await fetchFile(job.result.download_url)
  expect(file.status).toBe(200)
  return { job, bytes: file.bytes }
}

/** Queues, waits for the end, and returns the completed job and its probed file. */
const completedDownload = async (body: Record<string, unknown>) => {
  const { job, bytes } = await completedDownloadOf(body)
  return { job, probed: await probeBytes(bytes, `.${job.result.filename.split(".").at(-1)}`) }
}

describe("clips", () => {
  it("a precise clip lasts end - start within half a second, and the job shows its section", async () => {
    const section = { start: 5, end: 12, precise: true }
    const { job, probed } = await completedDownload({ url: e2e.media.urls.slow, format: "video_best", section })
    expect(job.options).toEqual({ section })
    expect(Math.abs(probed.durationSeconds - 7), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
    expect(job.result.mime_type).toBe("video/mp4")
  })

  it("a section beyond the resolved duration is a 422 section_out_of_range, and takes no slot", async () => {
    const resolved = await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", { key: e2e.key, json: { url: e2e.media.urls.page } })
    expect(resolved.status, e2e.context(resolved)).toBe(200)
    expect(resolved.body.data.duration).toBe(clipPage.durationSeconds)
    const mediaId = resolved.body.data.id
    const outside = await download({ media_id: mediaId, format: "video_best", section: { start: 10, end: 20 } })
    expectError(outside, 422, "section_out_of_range")
    expect(outside.body.error.message).toContain(`${clipPage.durationSeconds} s`)
    // Three refusals in a row would have hit the two-job limit had they taken slots.
    for (let i = 0; i < 2; i++)
      expectError(await download({ media_id: mediaId, format: "video_best", section: { start: 1, end: 60 } }), 422, "section_out_of_range")
    const inside = await download({ media_id: mediaId, format: "video_best", section: { start: 1, end: 3 } })
    expect(inside.status, e2e.context(inside)).toBe(202)
  })

  it("malformed sections are 400 invalid_request naming the field; an end not after the start is 422 invalid_options", async () => {
    const backwards = await download({ url: e2e.media.urls.mp4, format: "video_best", section: { start: 5, end: 5 } })
    expectError(backwards, 422, "invalid_options")
    expect(backwards.body.error.message).toContain("section.end")
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ start: -1, end: 5 }, "section.start"],
      [{ start: 1 }, "section.end"],
      [{ start: "1", end: 5 }, "section.start"],
      [{ start: 1, end: 5, precise: "yes" }, "section.precise"],
      ["30-45", "section"]
    ]
    for (const [section, field] of cases) {
      const response = await download({ url: e2e.media.urls.mp4, format: "video_best", section })
      expectError(response, 400, "invalid_request")
      expect(response.body.error.message, JSON.stringify(section)).toContain(field)
    }
  })
})

describe("output presets", () => {
  it("the preset shows in the job, its mime_type and its filename", async () => {
    const { job, probed } = await completedDownload({
      url: e2e.media.urls.mp4,
      format: "video_best",
      video_codec: "vp9",
      container: "webm",
      embed_metadata: true
    })
    expect(job.options).toEqual({ video_codec: "vp9", container: "webm", embed_metadata: true })
    expect(job.result.mime_type).toBe("video/webm")
    expect(job.result.filename).toMatch(/\.webm$/)
    expect(probed.codecNames).toEqual(expect.arrayContaining(["vp9", "opus"]))
  })

  it("a download without extension fields has no options and stays h264 in mp4", async () => {
    const { job, probed } = await completedDownload({ url: e2e.media.urls.mp4, format: "video_best" })
    expect(job).not.toHaveProperty("options")
    expect(job.result.mime_type).toBe("video/mp4")
    expect(probed.codecNames).toEqual(expect.arrayContaining(["h264", "aac"]))
  })

  it("fields that do not fit the format are 422 invalid_options, malformed ones 400 invalid_request, naming the field", async () => {
    const cases: ReadonlyArray<[Record<string, unknown>, number, string]> = [
      [{ format: "audio_mp3", video_codec: "h264" }, 422, "video_codec"],
      [{ format: "audio_m4a", mute: true }, 422, "mute"],
      [{ format: "audio_best", audio_bitrate: 128 }, 422, "audio_bitrate"],
      [{ format: "video_best", audio_bitrate: 128 }, 422, "audio_bitrate"],
      [{ format: "video_best", video_codec: "h264", container: "webm" }, 422, "container"],
      [{ format: "video_best", container: "webm", embed_thumbnail: true }, 422, "embed_thumbnail"],
      [{ format: "audio_mp3", audio_bitrate: 500 }, 400, "audio_bitrate"],
      [{ format: "video_best", container: "avi" }, 400, "container"],
      [{ format: "video_best", video_codec: "h265" }, 400, "video_codec"],
      [{ format: "video_best", mute: "yes" }, 400, "mute"]
    ]
    for (const [fields, status, field] of cases) {
      const response = await download({ url: e2e.media.urls.mp4, ...fields })
      expectError(response, status, status === 422 ? "invalid_options" : "invalid_request")
      expect(response.body.error.message, JSON.stringify(fields)).toContain(field)
    }
  })
})

describe("cancel", () => {
  const cancel = (jobId: string, withKey = e2e.key) => apiRequest(e2e.stack.baseUrl, "DELETE", `/jobs/${jobId}`, { key: withKey })
  const slowUrl = () => `${e2e.media.urls.slow}?rate=65536&n=${Math.random()}`

  it("cancels a processing job: failed with error.code canceled, its files and then its slot freed", async () => {
    const queued = await download({ url: slowUrl(), format: "video_best" })
    expect(queued.status, e2e.context(queued)).toBe(202)
    const jobId = queued.body.data.job_id
    await pollJobUntil(e2e.stack.baseUrl, e2e.key, jobId, (r) => r.body?.data?.status === "processing", { logs: e2e.stack.logs })

    const canceled = await cancel(jobId)
    expect(canceled.status, e2e.context(canceled)).toBe(200)
    expect(canceled.body.data).toMatchObject({ id: jobId, status: "failed", error: { code: "canceled", retryable: false } })
    expect(canceled.body.data.completed_at).toEqual(expect.any(String))

    // The other slot is free at once; the canceled job's slot once its worker stopped the run (within about a
    // second): until then a second job may be refused 429, never run beside the canceled one.
    const first = await download({ url: slowUrl(), format: "video_best" })
    expect(first.status, describeResponse(first)).toBe(202)
    const second = await eventually(
      () => download({ url: slowUrl(), format: "video_best" }),
      (r) => r.status !== 429,
      "the canceled job's slot to be freed"
    )
    expect(second.status, describeResponse(second)).toBe(202)
    const more = [first, second]

    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(job).toMatchObject({ status: "failed", error: { code: "canceled" } })
    expect(job).not.toHaveProperty("result")
    const workDirs = async () =>
      (await readdir(join(e2e.stack.dataDir, "work")).catch(() => [] as Array<string>)).filter((d) => d.startsWith(jobId))
    expect(await eventually(workDirs, (dirs) => dirs.length === 0, "the job's work directory removed")).toEqual([])

    // Canceling again answers the same; the others are canceled while queued or processing.
    const again = await cancel(jobId)
    expect(again.status).toBe(200)
    expect(again.body.data.error.code).toBe("canceled")
    for (const r of more) expect((await cancel(r.body.data.job_id)).body.data.error.code).toBe("canceled")
  })

  it("a finished job is a 409 job_already_finished; unknown, foreign and malformed ids are 404; the scope is media:download", async () => {
    const { job } = await completedDownload({ url: e2e.media.urls.mp4, format: "audio_m4a" })
    const finished = await cancel(job.id)
    expectError(finished, 409, "job_already_finished")
    expect(finished.body.error.message).toContain("completed")
    // Still completed (read once the 2 s polling interval since the last read allows).
    const read = await eventually(
      () => apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${job.id}`, { key: e2e.key }),
      (r) => r.status !== 429,
      "an answered poll",
      5_000,
      300
    )
    expect(read.body.data.status).toBe("completed")

    expectError(await cancel("job_aaaaaaaaaaaaaaaaaaaaaaaa"), 404, "job_not_found")
    expectError(await cancel("not-a-job"), 404, "job_not_found")
    const other = await e2e.stack.provisionKey()
    expectError(await cancel(job.id, other.key), 404, "job_not_found")
    const readOnly = await e2e.stack.provisionKey({ scopes: ["media:resolve"] })
    expectError(await cancel(job.id, readOnly.key), 403, "insufficient_scope")
    const noKey = await apiRequest(e2e.stack.baseUrl, "DELETE", `/jobs/${job.id}`)
    expectError(noKey, 401, "missing_api_key")
  })
})

describe("subtitles", () => {
  it("resolve lists them; a download embeds them or delivers one as .vtt; languages the media lacks are a 422", async () => {
    const resolved = await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", {
      key: e2e.key,
      json: { url: e2e.media.urls.subtitledPage }
    })
    expect(resolved.status, e2e.context(resolved)).toBe(200)
    expect(resolved.body.data.subtitles).toEqual([
      { language: "de", name: "de", automatic: false },
      { language: "en", name: "en", automatic: false }
    ])
    const mediaId = resolved.body.data.id

    const vtt = await completedDownloadOf({ media_id: mediaId, format: "subtitles_en" })
    expect(vtt.job.result.mime_type).toBe("text/vtt")
    expect(vtt.job.result.filename).toMatch(/\.en\.vtt$/)
    expect(vtt.bytes.toString("utf8")).toContain(subtitleCues.en)

    const { job, probed } = await completedDownload({ media_id: mediaId, format: "video_best", subtitles: ["de"] })
    expect(job.options).toEqual({ subtitles: ["de"] })
    expect(probed.codecTypes).toContain("subtitle")

    const missing = await download({ media_id: mediaId, format: "video_best", subtitles: ["de", "fr"] })
    expectError(missing, 422, "subtitles_unavailable")
    expect(missing.body.error.message).toContain("fr")
    expectError(await download({ media_id: mediaId, format: "subtitles_fr" }), 422, "subtitles_unavailable")
    expectError(await download({ media_id: mediaId, format: "audio_mp3", subtitles: ["en"] }), 422, "invalid_options")
    expectError(await download({ media_id: mediaId, format: "subtitles_en", section: { start: 1, end: 2 } }), 422, "invalid_options")
    expectError(await download({ media_id: mediaId, format: "video_best", subtitles: ["not a language"] }), 400, "invalid_request")
  })
})

describe("playlists", () => {
  const resolve = (body: Record<string, unknown>) => apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", { key: e2e.key, json: body })

  it("a resolve that asks for playlists lists a feed's entries flat, a page at a time; without it, nothing changes", async () => {
    const first = await resolve({ url: e2e.media.urls.podcastFeed, playlist: { limit: 2 } })
    expect(first.status, e2e.context(first)).toBe(200)
    expect(first.body.data).toMatchObject({ type: "playlist", title: "MDS Test Feed", entry_count: podcastFeedEpisodes, next_offset: 2 })
    expect(first.body.data.entries.map((e: any) => e.title)).toEqual(["Episode 1", "Episode 2"])
    expect(first.body.data.entries[0]).toEqual({
      id: expect.stringMatching(/^ent_[0-9a-f]{16}$/),
      url: `${e2e.media.urls.audio}?episode=1`,
      title: "Episode 1",
      duration: 4,
      // The feed's items carry no <guid> and no <pubDate>: no archive id of their own, no published time.
      extractor_key: null,
      extractor_id: null,
      published_at: null
    })
    const second = await resolve({ url: e2e.media.urls.podcastFeed, playlist: { offset: 2, limit: 2 } })
    expect(second.body.data.id).toBe(first.body.data.id)
    expect(second.body.data.entries.map((e: any) => e.title)).toEqual(["Episode 3"])
    expect(second.body.data.next_offset).toBeNull()

    const plain = await resolve({ url: e2e.media.urls.mp4, playlist: {} })
    expect(plain.body.data.type).toBe("video")
    expect(plain.body.data).not.toHaveProperty("entries")
    expectError(await resolve({ url: e2e.media.urls.podcastFeed, playlist: { limit: 500 } }), 400, "invalid_request")

    // An entry downloads by its url; the playlist itself is not a file.
    const { job } = await completedDownloadOf({ url: first.body.data.entries[1].url, format: "audio_m4a" })
    expect(job.result.mime_type).toBe("audio/mp4")
    expectError(await download({ media_id: first.body.data.id, format: "audio_mp3" }), 422, "invalid_options")
  })
})

// The download extensions end to end on the running stack: clips (and, below, cancel), checked with ffprobe.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clipPage, type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { fetchFile, probeBytes } from "./MediaProbe.ts"

let media: MediaServer
let stack: ServiceStack
let key: string

beforeAll(async () => {
  media = await startMediaServer()
  stack = await startServiceStack({ env: { EGRESS_ALLOW: media.hostPort } })
  key = (await stack.provisionKey()).key
})

afterAll(async () => {
  await stack?.close()
  await media?.close()
})

const context = (response: ApiResponse) => `${describeResponse(response)}\n${stack.logs()}`
const download = (body: Record<string, unknown>) => apiRequest(stack.baseUrl, "POST", "/media/download", { key, json: body })

const expectError = (response: ApiResponse, status: number, code: string) => {
  expect(response.status, context(response)).toBe(status)
  expect(response.body.error.code).toBe(code)
  expect(response.body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/)
  expect(response.body.error.request_id).toBe(response.headers.get("x-request-id"))
}

/** Queues, waits for the end, and returns the completed job and its probed file. */
const completedDownload = async (body: Record<string, unknown>) => {
  const queued = await download(body)
  expect(queued.status, context(queued)).toBe(202)
  const { job } = await pollJobUntilFinished(stack.baseUrl, key, queued.body.data.job_id, { logs: stack.logs })
  expect(job.status, `${JSON.stringify(job)}\n${stack.logs()}`).toBe("completed")
  const file = await fetchFile(job.result.download_url)
  expect(file.status).toBe(200)
  return { job, probed: await probeBytes(file.bytes, `.${job.result.filename.split(".").at(-1)}`) }
}

describe("clips", () => {
  it("a precise clip lasts end - start within half a second, and the job shows its section", async () => {
    const section = { start: 5, end: 12, precise: true }
    const { job, probed } = await completedDownload({ url: media.urls.slow, format: "video_best", section })
    expect(job.options).toEqual({ section })
    expect(Math.abs(probed.durationSeconds - 7), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
    expect(job.result.mime_type).toBe("video/mp4")
  })

  it("a section beyond the resolved duration is a 422 section_out_of_range, and takes no slot", async () => {
    const resolved = await apiRequest(stack.baseUrl, "POST", "/media/resolve", { key, json: { url: media.urls.page } })
    expect(resolved.status, context(resolved)).toBe(200)
    expect(resolved.body.data.duration).toBe(clipPage.durationSeconds)
    const mediaId = resolved.body.data.id
    const outside = await download({ media_id: mediaId, format: "video_best", section: { start: 10, end: 20 } })
    expectError(outside, 422, "section_out_of_range")
    expect(outside.body.error.message).toContain(`${clipPage.durationSeconds} s`)
    // Three refusals in a row would have hit the two-job limit had they taken slots.
    for (let i = 0; i < 2; i++) expectError(await download({ media_id: mediaId, format: "video_best", section: { start: 1, end: 60 } }), 422, "section_out_of_range")
    const inside = await download({ media_id: mediaId, format: "video_best", section: { start: 1, end: 3 } })
    expect(inside.status, context(inside)).toBe(202)
  })

  it("malformed sections are 400 invalid_request naming the field", async () => {
    const cases: ReadonlyArray<[unknown, string]> = [
      [{ start: 5, end: 5 }, "section.end"],
      [{ start: -1, end: 5 }, "section.start"],
      [{ start: 1 }, "section.end"],
      [{ start: "1", end: 5 }, "section.start"],
      [{ start: 1, end: 5, precise: "yes" }, "section.precise"],
      ["30-45", "section"]
    ]
    for (const [section, field] of cases) {
      const response = await download({ url: media.urls.mp4, format: "video_best", section })
      expectError(response, 400, "invalid_request")
      expect(response.body.error.message, JSON.stringify(section)).toContain(field)
    }
  })
})

describe("output presets", () => {
  it("the preset shows in the job, its mime_type and its filename", async () => {
    const { job, probed } = await completedDownload({ url: media.urls.mp4, format: "video_best", video_codec: "vp9", container: "webm", embed_metadata: true })
    expect(job.options).toEqual({ video_codec: "vp9", container: "webm", embed_metadata: true })
    expect(job.result.mime_type).toBe("video/webm")
    expect(job.result.filename).toMatch(/\.webm$/)
    expect(probed.codecNames).toEqual(expect.arrayContaining(["vp9", "opus"]))
  })

  it("a download without extension fields has no options and stays h264 in mp4", async () => {
    const { job, probed } = await completedDownload({ url: media.urls.mp4, format: "video_best" })
    expect(job).not.toHaveProperty("options")
    expect(job.result.mime_type).toBe("video/mp4")
    expect(probed.codecNames).toEqual(expect.arrayContaining(["h264", "aac"]))
  })

  it("fields that do not fit the format are 400 invalid_request naming the field", async () => {
    const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
      [{ format: "audio_mp3", video_codec: "h264" }, "video_codec"],
      [{ format: "audio_m4a", mute: true }, "mute"],
      [{ format: "audio_best", audio_bitrate: 128 }, "audio_bitrate"],
      [{ format: "video_best", audio_bitrate: 128 }, "audio_bitrate"],
      [{ format: "audio_mp3", audio_bitrate: 500 }, "audio_bitrate"],
      [{ format: "video_best", video_codec: "h264", container: "webm" }, "container"],
      [{ format: "video_best", container: "avi" }, "container"],
      [{ format: "video_best", video_codec: "h265" }, "video_codec"],
      [{ format: "video_best", container: "webm", embed_thumbnail: true }, "embed_thumbnail"],
      [{ format: "video_best", mute: "yes" }, "mute"]
    ]
    for (const [fields, field] of cases) {
      const response = await download({ url: media.urls.mp4, ...fields })
      expectError(response, 400, "invalid_request")
      expect(response.body.error.message, JSON.stringify(fields)).toContain(field)
    }
  })
})


// Formats that tell the truth: media shaped like real platforms resolve to what they hold, and every advertised
// format downloads (by media id) to a file of the advertised container, height and streams (checked with ffprobe).
import { execFile } from "node:child_process"
import { extname, join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { MediaFormat, MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { streamingFacts } from "../../../test/support/MediaFixtures.ts"
import { type MediaServer, podcastPage, startMediaServer } from "../../../test/support/MediaServer.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

const execFileAsync = promisify(execFile)

let media: MediaServer
let h: ExtractorHarness

beforeAll(async () => {
  media = await startMediaServer()
  h = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, WORKER_CONCURRENCY: "2" })
})

afterAll(async () => {
  await h?.close()
  await media?.close()
})

const resolved = (url: string): Promise<MediaResolved> => h.resolved(url)

interface Probe {
  readonly format: { readonly format_name: string }
  readonly streams: ReadonlyArray<{
    readonly codec_type: string
    readonly height?: number
    readonly disposition?: { readonly attached_pic?: number }
  }>
}

const probe = async (path: string): Promise<Probe> => {
  const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
  return JSON.parse(stdout) as Probe
}

/** ffprobe's demuxer names for each container we advertise. */
const DEMUXER: Record<string, string> = {
  mp4: "mov,mp4,m4a,3gp,3g2,mj2",
  m4a: "mov,mp4,m4a,3gp,3g2,mj2",
  webm: "matroska,webm",
  opus: "ogg",
  ogg: "ogg",
  mp3: "mp3"
}

const ended = (events: ReadonlyArray<JobEvent>) => {
  const last = events.at(-1)
  if (last?._tag === "JobCompleted") return { ok: true as const, artifact: last.artifact }
  if (last?._tag === "JobFailed") return { ok: false as const, code: last.error.code }
  throw new Error(`job did not end: ${JSON.stringify(last)}`)
}

/** Downloads each advertised format by media id and checks the file against what the format says. */
const deliversEveryFormat = async (m: MediaResolved, expectAudio: boolean) => {
  const jobs = await Promise.all(m.formats.map(async (format) => ({ format, job: await h.queueJob(m.url, format.id, m.mediaId) })))
  const checked: Array<string> = []
  for (const { format, job } of jobs) {
    const result = ended(await h.waitForEnd(job.projectId, job.jobId, 90_000))
    if (!result.ok) throw new Error(`${format.id} failed: ${result.code}`)
    const path = join(h.dataDir, "artifacts", "files", ...result.artifact.key.split("/"))
    expect(`${format.id}: ${extname(result.artifact.filename).slice(1)}`).toBe(`${format.id}: ${format.container}`)
    const found = await probe(path)
    expect(`${format.id}: ${found.format.format_name}`).toBe(`${format.id}: ${DEMUXER[format.container]}`)
    const video = found.streams.filter((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1)
    const audio = found.streams.filter((s) => s.codec_type === "audio")
    checkStreams(
      format,
      video.map((s) => s.height ?? 0),
      audio.length,
      expectAudio
    )
    checked.push(format.id)
  }
  return checked
}

const checkStreams = (format: MediaFormat, heights: ReadonlyArray<number>, audioStreams: number, expectAudio: boolean) => {
  if (format.type === "audio") {
    expect(`${format.id}: ${heights.length} video, ${audioStreams} audio`).toBe(`${format.id}: 0 video, 1 audio`)
    return
  }
  expect(`${format.id}: ${heights.join(",")}p`).toBe(`${format.id}: ${format.quality}`)
  expect(`${format.id}: ${audioStreams} audio`).toBe(`${format.id}: ${expectAudio ? 1 : 0} audio`)
}

describe("formats that tell the truth", () => {
  it("DASH with separate audio: duration, a thumbnail, every height and the audio formats deliver", async () => {
    const m = await resolved(media.urls.dash)
    expect(m.duration).toBe(streamingFacts.seconds)
    expect(m.thumbnail).not.toBe("")
    expect(m.formats.map((f) => `${f.id}:${f.container}`)).toEqual([
      "video_best:mp4",
      "video_360p:mp4",
      "video_240p:mp4",
      "audio_best:m4a",
      "audio_mp3:mp3",
      "audio_m4a:m4a"
    ])
    expect(await deliversEveryFormat(m, true)).toHaveLength(6)
  })

  it("HLS with an EXT-X-MEDIA audio rendition: the audio formats are offered and deliver", async () => {
    const m = await resolved(media.urls.hlsAudio)
    expect(m.duration).toBe(streamingFacts.seconds)
    expect(m.formats.map((f) => `${f.id}:${f.container}`)).toEqual([
      "video_best:mp4",
      "video_360p:mp4",
      "video_240p:mp4",
      "audio_best:m4a",
      "audio_mp3:mp3",
      "audio_m4a:m4a"
    ])
    expect(await deliversEveryFormat(m, true)).toHaveLength(6)
  })

  it("VP9/Opus WebM: video arrives as WebM and audio_best as Opus, as advertised", async () => {
    const m = await resolved(media.urls.webm)
    expect(m.formats.map((f) => `${f.id}:${f.container}`)).toEqual([
      "video_best:webm",
      `video_${streamingFacts.webmHeight}p:webm`,
      "audio_best:opus",
      "audio_mp3:mp3",
      "audio_m4a:m4a"
    ])
    expect(await deliversEveryFormat(m, true)).toHaveLength(5)
  })

  it("a direct MP3: its ID3 title and artist, its cover as thumbnail, audio formats only", async () => {
    const m = await resolved(media.urls.mp3)
    expect(m.type).toBe("audio")
    expect(m.title).toBe(streamingFacts.episodeTitle)
    expect(m.author.name).toBe(streamingFacts.episodeArtist)
    expect(m.duration).toBe(streamingFacts.episodeSeconds)
    expect(m.thumbnail).not.toBe("")
    expect(m.formats.map((f) => `${f.id}:${f.container}`)).toEqual(["audio_best:mp3", "audio_mp3:mp3", "audio_m4a:m4a"])
    expect(await deliversEveryFormat(m, true)).toHaveLength(3)
  })

  it("a podcast page: the JSON-LD author and episode title", async () => {
    const m = await resolved(media.urls.podcastPage)
    expect(m.type).toBe("audio")
    expect(m.title).toBe(podcastPage.title)
    expect(m.author.name).toBe(podcastPage.author)
    expect(m.duration).toBe(streamingFacts.episodeSeconds)
    expect(await deliversEveryFormat(m, true)).toHaveLength(3)
  })

  it("an HTML5 page with two <source>s: mp4 preferred, every format delivers", async () => {
    const m = await resolved(media.urls.html5Page)
    expect(m.type).toBe("video")
    expect(m.formats[0]).toMatchObject({ id: "video_best", container: "mp4" })
    expect((await deliversEveryFormat(m, true)).length).toBeGreaterThanOrEqual(4)
  })

  it("a download by url of a format the media lacks fails with format_unavailable", async () => {
    const audioOnly = await h.queueJob(media.urls.mp3, "video_best")
    const silent = await h.queueJob(media.urls.silentMp4, "audio_best")
    expect(ended(await h.waitForEnd(audioOnly.projectId, audioOnly.jobId))).toEqual({ ok: false, code: "format_unavailable" })
    expect(ended(await h.waitForEnd(silent.projectId, silent.jobId))).toEqual({ ok: false, code: "format_unavailable" })
  })
})

describe("images", () => {
  it("a direct image is no video: it resolves to media_unavailable (images are advertised nowhere)", async () => {
    const reply = await h.resolve(media.urls.thumbnail)
    expect(reply._tag === "ResolveRejected" ? reply.code : `resolved as ${JSON.stringify(reply.media.formats)}`).toBe("media_unavailable")
  })
})

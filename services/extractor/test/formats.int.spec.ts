// Formats that tell the truth: media shaped like real platforms resolve to what they hold, and every advertised
// format downloads (by media id) to a file of the advertised container, height and streams (checked with ffprobe).
import { execFile } from "node:child_process"
import { extname, join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { MediaFormat, MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { streamingFacts } from "../../../test/support/MediaFixtures.ts"
import { podcastPage } from "../../../test/support/MediaServer.ts"
import { mediaAndExtractor } from "./ExtractorHarness.ts"

const execFileAsync = promisify(execFile)

const stack = mediaAndExtractor({ WORKER_CONCURRENCY: "2" })

const resolved = (url: string): Promise<MediaResolved> => stack.harness.resolved(url)

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
  const jobs = await Promise.all(
    m.formats.map(async (format) => ({ format, job: await stack.harness.queueJob(m.url, format.id, m.mediaId) }))
  )
  const checked: Array<string> = []
  for (const { format, job } of jobs) {
    const result = ended(await stack.harness.waitForEnd(job.projectId, job.jobId, 90_000))
    if (!result.ok) throw new Error(`${format.id} failed: ${result.code}`)
    const path = join(stack.harness.dataDir, "artifacts", "files", ...result.artifact.key.split("/"))
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

/** The advertised formats as `id:container`. */
const offered = (m: MediaResolved) => m.formats.map((f) => `${f.id}:${f.container}`)

/** What the two-height streaming fixtures (DASH, HLS with an audio rendition) offer. */
const TWO_HEIGHTS_AND_AUDIO = ["video_best:mp4", "video_360p:mp4", "video_240p:mp4", "audio_best:m4a", "audio_mp3:mp3", "audio_m4a:m4a"]

/** Resolves the fixture episode and checks it is audio with this title and author and the episode's duration. */
const resolvedEpisode = async (url: string, title: string, author: string) => {
  const m = await resolved(url)
  expect(m.type).toBe("audio")
  expect(m.title).toBe(title)
  expect(m.author.name).toBe(author)
  expect(m.duration).toBe(streamingFacts.episodeSeconds)
  return m
}

describe("formats that tell the truth", () => {
  it("DASH with separate audio: duration, a thumbnail, every height and the audio formats deliver", async () => {
    const m = await resolved(stack.media.urls.dash)
    expect(m.duration).toBe(streamingFacts.seconds)
    expect(m.thumbnail).not.toBe("")
    expect(offered(m)).toEqual(TWO_HEIGHTS_AND_AUDIO)
    expect(await deliversEveryFormat(m, true)).toHaveLength(6)
  })

  it("HLS with an EXT-X-MEDIA audio rendition: the audio formats are offered and deliver", async () => {
    const m = await resolved(stack.media.urls.hlsAudio)
    expect(m.duration).toBe(streamingFacts.seconds)
    expect(offered(m)).toEqual(TWO_HEIGHTS_AND_AUDIO)
    expect(await deliversEveryFormat(m, true)).toHaveLength(6)
  })

  it("VP9/Opus WebM: video arrives as WebM and audio_best as Opus, as advertised", async () => {
    const m = await resolved(stack.media.urls.webm)
    expect(offered(m)).toEqual([
      "video_best:webm",
      `video_${streamingFacts.webmHeight}p:webm`,
      "audio_best:opus",
      "audio_mp3:mp3",
      "audio_m4a:m4a"
    ])
    expect(await deliversEveryFormat(m, true)).toHaveLength(5)
  })

  it("a direct MP3: its ID3 title and artist, its cover as thumbnail, audio formats only", async () => {
    const m = await resolvedEpisode(stack.media.urls.mp3, streamingFacts.episodeTitle, streamingFacts.episodeArtist)
    expect(m.thumbnail).not.toBe("")
    expect(offered(m)).toEqual(["audio_best:mp3", "audio_mp3:mp3", "audio_m4a:m4a"])
    expect(await deliversEveryFormat(m, true)).toHaveLength(3)
  })

  it("a podcast page: the JSON-LD author and episode title", async () => {
    const m = await resolvedEpisode(stack.media.urls.podcastPage, podcastPage.title, podcastPage.author)
    expect(await deliversEveryFormat(m, true)).toHaveLength(3)
  })

  it("an HTML5 page with two <source>s: mp4 preferred, every format delivers", async () => {
    const m = await resolved(stack.media.urls.html5Page)
    expect(m.type).toBe("video")
    expect(m.formats[0]).toMatchObject({ id: "video_best", container: "mp4" })
    expect((await deliversEveryFormat(m, true)).length).toBeGreaterThanOrEqual(4)
  })

  it("a download by url of a format the media lacks fails with format_unavailable", async () => {
    const audioOnly = await stack.harness.queueJob(stack.media.urls.mp3, "video_best")
    const silent = await stack.harness.queueJob(stack.media.urls.silentMp4, "audio_best")
    expect(ended(await stack.harness.waitForEnd(audioOnly.projectId, audioOnly.jobId))).toEqual({ ok: false, code: "format_unavailable" })
    expect(ended(await stack.harness.waitForEnd(silent.projectId, silent.jobId))).toEqual({ ok: false, code: "format_unavailable" })
  })
})

describe("images", () => {
  it("a direct image is no video: it resolves to media_unavailable (images are advertised nowhere)", async () => {
    const reply = await stack.harness.resolve(stack.media.urls.thumbnail)
    expect(reply._tag === "ResolveRejected" ? reply.code : `resolved as ${JSON.stringify(reply.media.formats)}`).toBe("media_unavailable")
  })
})

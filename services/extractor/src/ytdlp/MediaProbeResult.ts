// What ffprobe tells about a media URL when yt-dlp could not: duration, which streams exist, codecs and tags.
import { Schema } from "effect"

export interface MediaProbeResult {
  readonly durationSeconds: number | null
  readonly hasVideo: boolean
  readonly hasAudio: boolean
  readonly height: number | null
  /** ffprobe's codec name of the first video stream that is not a cover picture (h264, vp9, ...). */
  readonly videoCodec: string | null
  /** ffprobe's codec name of the first audio stream (aac, opus, mp3, ...). */
  readonly audioCodec: string | null
  /** An audio file's embedded picture (ID3 APIC, MP4 covr): a cover to use as thumbnail. */
  readonly hasCover: boolean
  /** The file's own title and artist tags (ID3, MP4, Vorbis comments). */
  readonly title: string | null
  readonly artist: string | null
}

/** Picture codecs: a "video" made only of these, without audio, is a still image, which the service does not deliver. */
const IMAGE_CODECS = new Set(["mjpeg", "png", "webp", "bmp", "tiff", "gif", "jpegls", "jpeg2000", "avif"])

const Tags = Schema.Record(Schema.String, Schema.String)

const FfprobeStream = Schema.Struct({
  codec_type: Schema.optional(Schema.String),
  codec_name: Schema.optional(Schema.String),
  height: Schema.optional(Schema.Number),
  duration: Schema.optional(Schema.String),
  disposition: Schema.optional(Schema.Struct({ attached_pic: Schema.optional(Schema.Number) }))
})

export const FfprobeOutput = Schema.Struct({
  streams: Schema.optional(Schema.Array(FfprobeStream)),
  format: Schema.optional(Schema.Struct({ duration: Schema.optional(Schema.String), tags: Schema.optional(Tags) }))
})
export type FfprobeOutput = typeof FfprobeOutput.Type

const seconds = (text: string | undefined) => {
  const value = text === undefined ? Number.NaN : Number(text)
  return Number.isFinite(value) && value > 0 ? value : null
}

/** Tag keys differ in case between containers (ID3 "title", Vorbis "TITLE"). */
const tag = (tags: Readonly<Record<string, string>> | undefined, name: string) => {
  const found = Object.entries(tags ?? {})
    .find(([key]) => key.toLowerCase() === name)?.[1]
    ?.trim()
  return found === undefined || found === "" ? null : found
}

/** Cover art in an audio file is a "video" stream with attached_pic set; it does not make the media a video. */
export const summarizeProbe = (output: FfprobeOutput): MediaProbeResult => {
  const streams = output.streams ?? []
  const audio = streams.filter((s) => s.codec_type === "audio")
  const pictures = streams.filter((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1)
  const stillImage = audio.length === 0 && pictures.length > 0 && pictures.every((s) => IMAGE_CODECS.has(s.codec_name ?? ""))
  const video = stillImage ? [] : pictures
  const heights = video.map((s) => s.height ?? 0).filter((h) => h > 0)
  const streamDuration = streams.map((s) => seconds(s.duration)).find((d) => d !== null) ?? null
  return {
    durationSeconds: seconds(output.format?.duration) ?? streamDuration,
    hasVideo: video.length > 0,
    hasAudio: audio.length > 0,
    height: heights.length > 0 ? Math.max(...heights) : null,
    videoCodec: video[0]?.codec_name ?? null,
    audioCodec: audio[0]?.codec_name ?? null,
    hasCover: streams.some((s) => s.codec_type === "video" && s.disposition?.attached_pic === 1),
    title: tag(output.format?.tags, "title"),
    artist: tag(output.format?.tags, "artist")
  }
}

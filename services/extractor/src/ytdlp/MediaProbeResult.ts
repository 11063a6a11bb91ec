// What ffprobe tells about a media URL when yt-dlp could not: duration and which streams exist.
import { Schema } from "effect"

export interface MediaProbeResult {
  readonly durationSeconds: number | null
  readonly hasVideo: boolean
  readonly hasAudio: boolean
  readonly height: number | null
}

const FfprobeStream = Schema.Struct({
  codec_type: Schema.optional(Schema.String),
  height: Schema.optional(Schema.Number),
  duration: Schema.optional(Schema.String),
  disposition: Schema.optional(Schema.Struct({ attached_pic: Schema.optional(Schema.Number) }))
})

export const FfprobeOutput = Schema.Struct({
  streams: Schema.optional(Schema.Array(FfprobeStream)),
  format: Schema.optional(Schema.Struct({ duration: Schema.optional(Schema.String) }))
})
export type FfprobeOutput = typeof FfprobeOutput.Type

const seconds = (text: string | undefined) => {
  const value = text === undefined ? Number.NaN : Number(text)
  return Number.isFinite(value) && value > 0 ? value : null
}

/** Cover art in an audio file is a "video" stream with attached_pic set; it does not make the media a video. */
export const summarizeProbe = (output: FfprobeOutput): MediaProbeResult => {
  const streams = output.streams ?? []
  const video = streams.filter((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1)
  const audio = streams.filter((s) => s.codec_type === "audio")
  const heights = video.map((s) => s.height ?? 0).filter((h) => h > 0)
  const streamDuration = streams.map((s) => seconds(s.duration)).find((d) => d !== null) ?? null
  return {
    durationSeconds: seconds(output.format?.duration) ?? streamDuration,
    hasVideo: video.length > 0,
    hasAudio: audio.length > 0,
    height: heights.length > 0 ? Math.max(...heights) : null
  }
}

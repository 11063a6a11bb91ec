// Extension: how a job shapes its file beyond the format id (a clip of the media, ...); absent means today's default.
import { Schema } from "effect"
import { DeliveryOrder } from "../delivery/DeliveryOrder.ts"

/** A part of the media in seconds; `precise` re-encodes at the cuts, else the cuts fall on the nearest keyframes. */
export const ClipSection = Schema.Struct({
  start: Schema.Number,
  end: Schema.Number,
  precise: Schema.Boolean
})
export type ClipSection = typeof ClipSection.Type

export const VideoCodec = Schema.Literals(["h264", "vp9", "av1", "any"])
export type VideoCodec = typeof VideoCodec.Type

export const VideoContainer = Schema.Literals(["mp4", "webm", "mkv"])
export type VideoContainer = typeof VideoContainer.Type

/** Every field is optional and stays absent when the client did not ask for it, so old jobs and clients see nothing new. */
export const DownloadOptions = Schema.Struct({
  section: Schema.optionalKey(ClipSection),
  videoCodec: Schema.optionalKey(VideoCodec),
  container: Schema.optionalKey(VideoContainer),
  /** kbit/s of converted audio (audio_mp3, audio_m4a). */
  audioBitrate: Schema.optionalKey(Schema.Number),
  mute: Schema.optionalKey(Schema.Boolean),
  embedMetadata: Schema.optionalKey(Schema.Boolean),
  embedThumbnail: Schema.optionalKey(Schema.Boolean),
  /** Languages of subtitle tracks to embed (mp4: mov_text, mkv/webm: natively). */
  subtitles: Schema.optionalKey(Schema.Array(Schema.String)),
  /** Extension, live streams: seconds after which a recording ends (within LIVE_MAX_DURATION_SECONDS). */
  maxDurationSeconds: Schema.optionalKey(Schema.Number),
  /** Extension: deliver the stored file into one of the project's destinations (DeliveryOrder). */
  delivery: Schema.optionalKey(DeliveryOrder)
})
export type DownloadOptions = typeof DownloadOptions.Type

export const hasOptions = (options: DownloadOptions | undefined): options is DownloadOptions =>
  options !== undefined && Object.keys(options).length > 0

/** Media shorter than the section's end by more than this are out of range (durations are whole seconds). */
export const SECTION_TOLERANCE_SECONDS = 1

/** Null when the section fits a media of this duration (unknown durations, 0 or null, always fit). */
export const sectionOutOfRange = (section: ClipSection, durationSeconds: number | null): string | null => {
  if (durationSeconds === null || durationSeconds <= 0) return null
  if (section.start >= durationSeconds || section.end > durationSeconds + SECTION_TOLERANCE_SECONDS) {
    return `The section ${section.start}-${section.end} s is outside the media, which lasts ${durationSeconds} s.`
  }
  return null
}

/** Containers each codec can be stored in: webm holds only VP9 and AV1 (with Opus or Vorbis sound). */
export const CONTAINERS_OF: Readonly<Record<VideoCodec, ReadonlyArray<VideoContainer>>> = {
  h264: ["mp4", "mkv"],
  vp9: ["mp4", "webm", "mkv"],
  av1: ["mp4", "webm", "mkv"],
  any: ["mp4", "webm", "mkv"]
}

/** The container a video job produces: the one asked for, else mp4 (as today; it holds all three codecs). */
export const containerOf = (options: DownloadOptions | undefined): VideoContainer => options?.container ?? "mp4"

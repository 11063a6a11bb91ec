// A download's format, parsed once from its id (video_best, video_720p, audio_best, audio_mp3, audio_m4a, subtitles_en)
// where a request or a stored message is decoded, and written back as the same id wherever it is stored or answered.
import { Schema, SchemaTransformation } from "effect"
import { LANGUAGE_PATTERN } from "./SubtitleTrack.ts"

const VideoFormat = Schema.Struct({ kind: Schema.Literal("video"), height: Schema.NullOr(Schema.Number) })
const AudioFormat = Schema.Struct({ kind: Schema.Literal("audio"), codec: Schema.Literals(["best", "mp3", "m4a"]) })
/** Extension: `subtitles_<language>` delivers one WebVTT file instead of the media. */
const SubtitlesFormat = Schema.Struct({ kind: Schema.Literal("subtitles"), language: Schema.String })
/**
 * An id outside the grammar. A request by URL with one is refused (format_unavailable); one a media offered is taken
 * as the gateway always took it (the worker then fails it format_unavailable, as before); a stored event that holds one
 * still decodes.
 */
const UnlistedFormat = Schema.Struct({ kind: Schema.Literal("unlisted"), id: Schema.String })

export const DownloadFormat = Schema.Union([VideoFormat, AudioFormat, SubtitlesFormat, UnlistedFormat])
export type DownloadFormat = typeof DownloadFormat.Type

/** What yt-dlp is asked for: the media as video (at most `height`, null: the best) or as audio. */
export type FormatSpec = Extract<DownloadFormat, { readonly kind: "video" | "audio" }>

const VIDEO_HEIGHT = /^video_([1-9][0-9]{1,3})p$/
const SUBTITLES = /^subtitles_(.+)$/

/** Any id, parsed: what is outside the grammar is `unlisted`, so an id read back is always the id written. */
export const parseFormatId = (id: string): DownloadFormat => {
  if (id === "video_best") return { kind: "video", height: null }
  if (id === "audio_best") return { kind: "audio", codec: "best" }
  if (id === "audio_mp3") return { kind: "audio", codec: "mp3" }
  if (id === "audio_m4a") return { kind: "audio", codec: "m4a" }
  const height = VIDEO_HEIGHT.exec(id)?.[1]
  if (height !== undefined) return { kind: "video", height: Number(height) }
  const language = SUBTITLES.exec(id)?.[1]
  if (language !== undefined && LANGUAGE_PATTERN.test(language)) return { kind: "subtitles", language }
  return { kind: "unlisted", id }
}

export const videoFormatId = (height: number): string => `video_${height}p`

/** The id a format is written as: the inverse of `parseFormatId`. */
export const formatIdOf = (format: DownloadFormat): string => {
  switch (format.kind) {
    case "video":
      return format.height === null ? "video_best" : videoFormatId(format.height)
    case "audio":
      return `audio_${format.codec}`
    case "subtitles":
      return `subtitles_${format.language}`
    case "unlisted":
      return format.id
  }
}

/** The media itself (video or audio), not subtitles nor an unknown id: what a batch or a subscription may ask for. */
export const isMediaFormat = (format: DownloadFormat): format is FormatSpec => format.kind === "video" || format.kind === "audio"

/** An id string read as its format, and a format written as its id. */
export const formatIdTransformation = SchemaTransformation.transform({ decode: parseFormatId, encode: formatIdOf })

/** A format as stored in events and documents and sent on the work queue: its id, decoded to the parsed format. */
export const FormatId = Schema.String.pipe(Schema.decodeTo(DownloadFormat, formatIdTransformation))

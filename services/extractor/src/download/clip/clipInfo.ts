// Pure: a resolve's stored info narrowed to a clip, when all its media is fragmented: every format keeps only the
// fragments the section overlaps, so yt-dlp fetches those natively (several at once) and the clip is cut locally.
import { Option } from "effect"
import type { ClipSection } from "@mds/shared/domain/job/DownloadOptions"
import type { InfoObject } from "../../resolve/info/downloadableInfo.ts"
import { trimDashFragments } from "./trimDashFragments.ts"
import { trimHlsPlaylist } from "./trimHlsPlaylist.ts"

/** Where a trimmed format's download starts in the media, and what it carries. */
export interface FormatStart {
  readonly startSeconds: number
  readonly video: boolean
  readonly audio: boolean
}

export interface ClipInfo {
  readonly info: InfoObject
  /** By format_id. */
  readonly starts: ReadonlyMap<string, FormatStart>
}

const isObject = (value: unknown): value is InfoObject => typeof value === "object" && value !== null && !Array.isArray(value)

/** Storyboards and other picture formats: never chosen for a video or audio job, and left as they are. */
const isMedia = (format: InfoObject) => format["protocol"] !== "mhtml" && !(format["vcodec"] === "none" && format["acodec"] === "none")

const trimFormat = (format: InfoObject, section: ClipSection): { format: InfoObject; startSeconds: number } | null => {
  const window = { start: section.start, end: section.end }
  const playlist = format["hls_media_playlist_data"]
  if (format["protocol"] === "m3u8_native" && typeof playlist === "string") {
    const index = format["format_index"]
    const trimmed = trimHlsPlaylist(playlist, window, typeof index === "number" ? index : null)
    return trimmed === null
      ? null
      : { format: { ...format, hls_media_playlist_data: trimmed.playlist }, startSeconds: trimmed.startSeconds }
  }
  if (format["protocol"] === "http_dash_segments") {
    const trimmed = trimDashFragments(format["fragments"], window)
    return trimmed === null ? null : { format: { ...format, fragments: trimmed.fragments }, startSeconds: trimmed.startSeconds }
  }
  return null
}

/**
 * None unless every media format of a finished stream can be trimmed exactly (native HLS with its playlist embedded at
 * resolve, or DASH with fragment durations): yt-dlp chooses the format during the run, so a clip is fetched this way
 * only when whichever it chooses is trimmed. Otherwise yt-dlp cuts the clip itself (--download-sections, ffmpeg
 * reading the section), which for a direct file fetches only the byte ranges it needs.
 */
export const clipInfo = (info: InfoObject, section: ClipSection): Option.Option<ClipInfo> => {
  const formats = info["formats"]
  if (info["is_live"] === true || !Array.isArray(formats) || formats.length === 0) return Option.none()
  const starts = new Map<string, FormatStart>()
  const trimmed: Array<unknown> = []
  for (const format of formats) {
    if (!isObject(format) || !isMedia(format)) {
      trimmed.push(format)
      continue
    }
    const id = format["format_id"]
    const cut = typeof id === "string" ? trimFormat(format, section) : null
    if (cut === null || typeof id !== "string") return Option.none()
    starts.set(id, { startSeconds: cut.startSeconds, video: format["vcodec"] !== "none", audio: format["acodec"] !== "none" })
    trimmed.push(cut.format)
  }
  return starts.size === 0 ? Option.none() : Option.some({ info: { ...info, formats: trimmed }, starts })
}

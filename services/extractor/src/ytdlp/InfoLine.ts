// Reads the line yt-dlp prints once the format is chosen and before anything is downloaded: duration, expected size and
// the chosen format's codecs.
import { Option, Schema } from "effect"
import { INFO_MARKER } from "./YtDlpFlags.ts"

const Size = Schema.optional(Schema.NullOr(Schema.Number))
const Codec = Schema.optional(Schema.NullOr(Schema.String))

export const SelectedMedia = Schema.Struct({
  duration: Size,
  filesize: Size,
  filesize_approx: Size,
  vcodec: Codec,
  acodec: Codec,
  format_id: Codec,
  is_live: Schema.optional(Schema.NullOr(Schema.Boolean)),
  live_status: Codec,
  release_timestamp: Size
})
export type SelectedMedia = typeof SelectedMedia.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(SelectedMedia))

export interface AnnouncedMedia {
  readonly durationSeconds: number | null
  readonly bytes: number | null
  /** yt-dlp's codec of the chosen video (merged formats: of their video part); "none" for none, null when unknown. */
  readonly videoCodec: string | null
  readonly audioCodec: string | null
  /** The chosen format's id ("v+a" for a merge of two). */
  readonly formatId: string | null
  /** Extension: the media is a live stream now (yt-dlp's is_live, or live_status is_live): the run records it. */
  readonly live: boolean
  /**
   * Extension: the media is a stream or premiere that has not begun (live_status is_upcoming), with its announced start
   * (epoch ms; null when not said); null for any other media. Its run then fails, and the job waits for the start.
   */
  readonly upcoming: { readonly startsAt: number | null } | null
}

export const parseInfoLine = (line: string): Option.Option<AnnouncedMedia> => {
  const at = line.indexOf(INFO_MARKER)
  if (at < 0) return Option.none()
  return Option.map(decode(line.slice(at + INFO_MARKER.length).trim()), (info) => ({
    durationSeconds: info.duration ?? null,
    bytes: info.filesize ?? info.filesize_approx ?? null,
    videoCodec: info.vcodec ?? null,
    audioCodec: info.acodec ?? null,
    formatId: info.format_id ?? null,
    live: info.is_live === true || info.live_status === "is_live",
    upcoming:
      info.live_status === "is_upcoming"
        ? {
            startsAt:
              typeof info.release_timestamp === "number" && info.release_timestamp > 0 ? Math.round(info.release_timestamp * 1000) : null
          }
        : null
  }))
}

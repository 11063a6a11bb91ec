// Reads the line yt-dlp prints once the format is chosen and before anything is downloaded: duration and expected size.
import { Option, Schema } from "effect"
import { INFO_MARKER } from "./YtDlpFlags.ts"

const Size = Schema.optional(Schema.NullOr(Schema.Number))

export const SelectedMedia = Schema.Struct({
  duration: Size,
  filesize: Size,
  filesize_approx: Size
})
export type SelectedMedia = typeof SelectedMedia.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(SelectedMedia))

export const parseInfoLine = (line: string): Option.Option<{ durationSeconds: number | null; bytes: number | null }> => {
  const at = line.indexOf(INFO_MARKER)
  if (at < 0) return Option.none()
  return Option.map(decode(line.slice(at + INFO_MARKER.length).trim()), (info) => ({
    durationSeconds: info.duration ?? null,
    bytes: info.filesize ?? info.filesize_approx ?? null
  }))
}

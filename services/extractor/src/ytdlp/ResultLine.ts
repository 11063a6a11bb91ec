// Reads the line yt-dlp prints after the final file is in place: its path, the media title and the extension.
import { Option, Schema } from "effect"
import { RESULT_MARKER } from "./YtDlpFlags.ts"

export const DownloadedFile = Schema.Struct({
  filepath: Schema.String,
  title: Schema.optional(Schema.NullOr(Schema.String)),
  ext: Schema.optional(Schema.NullOr(Schema.String)),
  /** The yt-dlp extractor that handled the media (the job's real platform). */
  extractor_key: Schema.optional(Schema.NullOr(Schema.String))
})
export type DownloadedFile = typeof DownloadedFile.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(DownloadedFile))

export const parseResultLine = (line: string): Option.Option<DownloadedFile> => {
  const at = line.indexOf(RESULT_MARKER)
  return at < 0 ? Option.none() : decode(line.slice(at + RESULT_MARKER.length).trim())
}

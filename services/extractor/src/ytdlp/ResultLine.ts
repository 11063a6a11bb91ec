// Reads the line yt-dlp prints after the final file is in place: its path, the media title and the extension.
import { Option, Schema } from "effect"
import { DELIVERY_RESULT_MARKER, RESULT_MARKER } from "./YtDlpFlags.ts"

export const DownloadedFile = Schema.Struct({
  filepath: Schema.String,
  title: Schema.optional(Schema.NullOr(Schema.String)),
  ext: Schema.optional(Schema.NullOr(Schema.String)),
  /** The yt-dlp extractor that handled the media (the job's real platform). */
  extractor_key: Schema.optional(Schema.NullOr(Schema.String)),
  /** Extension, for a job with a destination: yt-dlp's whole info of the media (its template fields, its sidecars). */
  info: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
})
export type DownloadedFile = typeof DownloadedFile.Type

const decode = Schema.decodeUnknownOption(Schema.fromJsonString(DownloadedFile))

const decodeInfo = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

/** The result line: the file's few fields; or, for a job with a destination, the whole info, kept beside them. */
export const parseResultLine = (line: string): Option.Option<DownloadedFile> => {
  const withInfo = line.indexOf(DELIVERY_RESULT_MARKER)
  if (withInfo >= 0) {
    return Option.flatMap(decodeInfo(line.slice(withInfo + DELIVERY_RESULT_MARKER.length).trim()), (info) =>
      Option.map(Schema.decodeUnknownOption(DownloadedFile)({ ...info, info }), (file) => file)
    )
  }
  const at = line.indexOf(RESULT_MARKER)
  return at < 0 ? Option.none() : decode(line.slice(at + RESULT_MARKER.length).trim())
}

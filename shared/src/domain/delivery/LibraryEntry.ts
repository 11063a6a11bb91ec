// What a media library's NFO says about one media, read from yt-dlp's info for it: decoded leniently (a field of the
// wrong type is absent), since the info is the platform's data, not ours.
import { Schema } from "effect"

const optionalText = Schema.optional(Schema.String)
const optionalNumber = Schema.optional(Schema.Finite)

export const LibraryEntry = Schema.Struct({
  id: Schema.String,
  title: optionalText,
  description: optionalText,
  upload_date: optionalText,
  timestamp: optionalNumber,
  uploader: optionalText,
  channel: optionalText,
  channel_id: optionalText,
  uploader_id: optionalText,
  duration: optionalNumber,
  extractor_key: optionalText,
  webpage_url: optionalText,
  playlist_title: optionalText,
  tags: Schema.optional(Schema.Array(Schema.String))
})
export type LibraryEntry = typeof LibraryEntry.Type

/** The info's known fields; each one whose type is not the expected one is left out rather than failing the whole. */
export const libraryEntryOf = (info: Readonly<Record<string, unknown>>): LibraryEntry | null => {
  const kept: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(LibraryEntry.fields)) {
    const decoded = Schema.decodeUnknownOption(field as Schema.Codec<unknown>)(info[key])
    if (decoded._tag === "Some" && decoded.value !== undefined) kept[key] = decoded.value
  }
  const entry = Schema.decodeUnknownOption(LibraryEntry)(kept)
  return entry._tag === "Some" ? entry.value : null
}

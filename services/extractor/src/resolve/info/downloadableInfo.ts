// The stored form of a resolve's info JSON: the media entry only, without the format choice the resolve made.
import { Option, Schema } from "effect"

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
const decodeInfo = Schema.decodeUnknownOption(Schema.fromJsonString(JsonObject))

/**
 * `-J` merges the format it picked into the top level (requested_formats, format_id, url, ...). Loaded with
 * --load-info-json and another `-f`, yt-dlp then still honours part of the old pick (yt-dlp issue #12600): a single
 * format chosen by the new `-f` inherits the old `requested_formats` and downloads those. Removing the pick leaves
 * yt-dlp nothing to choose from but `formats`, exactly as when it extracts from the page.
 */
const SELECTION_KEYS = [
  "requested_formats",
  "requested_downloads",
  "requested_subtitles",
  "format_id",
  "format",
  "format_note",
  "url",
  "manifest_url",
  "ext",
  "protocol",
  "vcodec",
  "acodec",
  "width",
  "height",
  "resolution",
  "fps",
  "tbr",
  "vbr",
  "abr",
  "asr",
  "filesize",
  "filesize_approx",
  "fragments",
  "fragment_base_url",
  "_filename",
  "filename"
]

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

export type InfoObject = Record<string, unknown>

/**
 * The entry to store for a download by media id, or none when yt-dlp's output is not a JSON object. A playlist answer
 * (a page embedding several videos) is narrowed to its first entry: the media the resolve described.
 */
export const downloadableInfo = (stdout: string): Option.Option<InfoObject> =>
  Option.map(decodeInfo(stdout), (info) => {
    const entries = Array.isArray(info["entries"]) ? info["entries"] : []
    const first = entries.find(isObject)
    const entry = info["_type"] === "playlist" && first !== undefined ? first : info
    const formats = entry["formats"]
    // A direct file without a formats list is its own only format: its url and ext must stay.
    if (!Array.isArray(formats) || formats.length === 0) return entry
    const stripped: InfoObject = { ...entry }
    for (const key of SELECTION_KEYS) delete stripped[key]
    return stripped
  })

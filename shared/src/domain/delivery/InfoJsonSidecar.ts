// yt-dlp's info for a media, as it is written beside the delivered file: without what only the worker should see
// (request headers, cookies, the worker's own file paths) and without any signed URL (format and fragment URLs go,
// and every other URL loses its query, where signatures and tokens travel).

/** Keys dropped wherever they appear: credentials, the worker's paths, and lists made of media URLs. */
const DROPPED_KEYS: ReadonlySet<string> = new Set([
  "http_headers",
  "cookies",
  "formats",
  "requested_formats",
  "requested_downloads",
  "requested_subtitles",
  "fragments",
  "fragment_base_url",
  "manifest_url",
  "url",
  "filename",
  "_filename",
  "filepath",
  "__files_to_move",
  "__postprocessors",
  "__real_download",
  "__write_download_archive",
  "infojson_filename",
  "__infojson_filename"
])

/** The page URLs a client gave or a platform shows publicly: kept whole, their query is the media's address. */
const PAGE_URL_KEYS: ReadonlySet<string> = new Set(["webpage_url", "original_url", "channel_url", "uploader_url", "playlist_webpage_url"])

const withoutQuery = (text: string): string => {
  if (!/^https?:\/\//iu.test(text)) return text
  try {
    const url = new URL(text)
    url.search = ""
    url.hash = ""
    url.username = ""
    url.password = ""
    return url.href
  } catch {
    return text
  }
}

const clean = (value: unknown, key: string | null): unknown => {
  if (typeof value === "string") return key !== null && PAGE_URL_KEYS.has(key) ? value : withoutQuery(value)
  if (Array.isArray(value)) return value.map((item) => clean(item, null))
  if (value !== null && typeof value === "object") {
    const kept: Record<string, unknown> = {}
    for (const [name, field] of Object.entries(value)) {
      if (!DROPPED_KEYS.has(name)) kept[name] = clean(field, name)
    }
    return kept
  }
  return value
}

/** The info as the sidecar holds it, pretty-printed. */
export const infoJsonSidecar = (info: Readonly<Record<string, unknown>>): string => `${JSON.stringify(clean(info, null), null, 2)}\n`

// Extension: the flat entries of a playlist answer (a feed, a page of links), or null when the answer is one media.
import { createHash } from "node:crypto"
import { Option, Schema } from "effect"
import type { PlaylistEntry } from "@mds/shared/domain/media/MediaEvent"
import type { YtDlpEntry, YtDlpInfo } from "./YtDlpInfo.ts"

/** yt-dlp smuggles data into entry URLs after this fragment; it is not part of the address. */
const SMUGGLED = "#__youtubedl_smuggle"

/** Stable across resolves of the same playlist: the entry's URL names it. */
export const entryIdOf = (url: string) => `ent_${createHash("sha256").update(url).digest("hex").slice(0, 16)}`

const SmuggledData = Schema.fromJsonString(Schema.Struct({ force_videoid: Schema.optional(Schema.String) }))
const decodeSmuggled = Schema.decodeUnknownOption(SmuggledData)

/** The id a feed smuggles with an item's URL (its guid): yt-dlp's generic extractor reads the item under that id. */
const smuggledVideoId = (url: string): string | undefined => {
  const at = url.indexOf(SMUGGLED)
  if (at < 0) return undefined
  const data = new URLSearchParams(url.slice(at + 1)).get(SMUGGLED.slice(1))
  return data === null ? undefined : Option.getOrUndefined(decodeSmuggled(data))?.force_videoid || undefined
}

/**
 * The extractor and id a download archive knows the entry by, as yt-dlp's `--download-archive` does: the entry's
 * `ie_key` and `id`; for a feed item without them, the generic extractor and the item's guid. Nothing when the
 * playlist names no extractor (yt-dlp would find one by the URL; the archive then falls back to the URL).
 */
const extractorIdentity = (entry: YtDlpEntry, rawUrl: string): Pick<PlaylistEntry, "extractorKey" | "extractorId"> => {
  if (entry.ie_key && entry.id) return { extractorKey: entry.ie_key, extractorId: entry.id }
  const guid = entry.ie_key ? undefined : smuggledVideoId(rawUrl)
  return guid === undefined ? {} : { extractorKey: "Generic", extractorId: guid }
}

const UPLOAD_DATE = /^(\d{4})(\d{2})(\d{2})$/

/** Epoch ms of a YYYYMMDD day's start (UTC), or undefined for a string that is no calendar day. */
const dayStart = (date: string | null | undefined): number | undefined => {
  const match = UPLOAD_DATE.exec(date ?? "")
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(year, month - 1, day)
  const parsed = new Date(ms)
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day ? ms : undefined
}

const seconds = (value: number | null | undefined): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? Math.round(value * 1000) : undefined

/** When the entry was published: its upload time, else its upload day (from midnight UTC), else its release time. */
const publishedAtOf = (entry: YtDlpEntry): number | undefined =>
  seconds(entry.timestamp) ?? dayStart(entry.upload_date) ?? seconds(entry.release_timestamp)

/**
 * A playlist whose entries are references (a flat answer: url and title, not formats). A page that embeds its media
 * (several <video>s) answers with full entries and stays a media: its first entry is what a resolve describes.
 */
export const playlistEntries = (info: YtDlpInfo, cap: number): ReadonlyArray<PlaylistEntry> | null => {
  if (info._type !== "playlist" || info.entries === undefined || info.entries === null) return null
  const references = info.entries.filter(
    (entry): entry is YtDlpEntry => entry !== null && (entry._type === "url" || entry._type === "url_transparent")
  )
  if (references.length === 0) return null
  const entries: Array<PlaylistEntry> = []
  for (const entry of references) {
    const rawUrl = entry.url ?? ""
    const url = rawUrl.split(SMUGGLED)[0]
    if (url === undefined || !/^https?:\/\//i.test(url) || entries.some((e) => e.url === url)) continue
    const publishedAt = publishedAtOf(entry)
    entries.push({
      id: entryIdOf(url),
      url,
      title: entry.title?.trim() || url,
      duration: typeof entry.duration === "number" && entry.duration > 0 ? Math.round(entry.duration) : null,
      ...extractorIdentity(entry, rawUrl),
      ...(publishedAt === undefined ? {} : { publishedAt })
    })
    if (entries.length >= cap) break
  }
  return entries.length === 0 ? null : entries
}

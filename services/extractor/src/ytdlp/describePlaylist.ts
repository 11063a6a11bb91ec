// Extension: the flat entries of a playlist answer (a feed, a page of links), or null when the answer is one media.
import { createHash } from "node:crypto"
import type { PlaylistEntry } from "@mds/shared/domain/media/MediaEvent"
import type { YtDlpInfo } from "./YtDlpInfo.ts"

/** yt-dlp smuggles data into entry URLs after this fragment; it is not part of the address. */
const SMUGGLED = "#__youtubedl_smuggle"

/** Stable across resolves of the same playlist: the entry's URL names it. */
export const entryIdOf = (url: string) => `ent_${createHash("sha256").update(url).digest("hex").slice(0, 16)}`

/**
 * A playlist whose entries are references (a flat answer: url and title, not formats). A page that embeds its media
 * (several <video>s) answers with full entries and stays a media: its first entry is what a resolve describes.
 */
export const playlistEntries = (info: YtDlpInfo, cap: number): ReadonlyArray<PlaylistEntry> | null => {
  if (info._type !== "playlist" || info.entries === undefined || info.entries === null) return null
  const references = info.entries.filter((entry) => entry !== null && (entry._type === "url" || entry._type === "url_transparent"))
  if (references.length === 0) return null
  const entries: Array<PlaylistEntry> = []
  for (const entry of references) {
    const url = entry?.url?.split(SMUGGLED)[0]
    if (url === undefined || !/^https?:\/\//i.test(url) || entries.some((e) => e.url === url)) continue
    entries.push({
      id: entryIdOf(url),
      url,
      title: entry?.title?.trim() || url,
      duration: typeof entry?.duration === "number" && entry.duration > 0 ? Math.round(entry.duration) : null
    })
    if (entries.length >= cap) break
  }
  return entries.length === 0 ? null : entries
}

// The `episodedetails` NFO Kodi, Jellyfin and Emby read beside a media file: title, plot, dates, studio, runtime, the
// platform's id as its uniqueid and the thumbnail written beside it.
import { episodeNumberOf, isoDateOf } from "./EpisodeNumber.ts"
import type { LibraryEntry } from "./LibraryEntry.ts"
import { type NfoElement, nfoDocument } from "./NfoXml.ts"

const text = (name: string, value: string | number | undefined | null): NfoElement | null =>
  value === undefined || value === null || value === "" ? null : { name, text: String(value) }

/** The platform's name as a uniqueid type (`youtube`, `vimeo`): lower case, letters and digits. */
export const uniqueIdType = (entry: LibraryEntry): string =>
  (entry.extractor_key ?? "platform").toLowerCase().replace(/[^a-z0-9]/gu, "") || "platform"

/**
 * The episode's NFO. `thumbFile` is the thumbnail's name beside it (null when none was written: no remote URL is put
 * in, a platform's image URL may be signed); `numbered` adds season and episode (a subscription's entries).
 */
export const episodeNfo = (entry: LibraryEntry, thumbFile: string | null, numbered: boolean): string => {
  const aired = isoDateOf(entry.upload_date)
  const number = numbered ? episodeNumberOf(entry.upload_date, entry.timestamp) : null
  return nfoDocument("episodedetails", [
    text("title", entry.title ?? entry.id),
    text("showtitle", numbered ? (entry.playlist_title ?? entry.channel ?? entry.uploader) : undefined),
    number === null ? null : text("season", number.season),
    number === null ? null : text("episode", number.episode),
    text("plot", entry.description),
    text("aired", aired),
    text("premiered", aired),
    text("year", aired?.slice(0, 4)),
    text("studio", entry.channel ?? entry.uploader),
    text("director", entry.uploader),
    text("runtime", entry.duration === undefined ? undefined : Math.max(1, Math.round(entry.duration / 60))),
    { name: "uniqueid", text: entry.id, attributes: { type: uniqueIdType(entry), default: "true" } },
    ...(entry.tags ?? []).slice(0, 50).map((tag) => ({ name: "tag", text: tag })),
    text("thumb", thumbFile)
  ])
}

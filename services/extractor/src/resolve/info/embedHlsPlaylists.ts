// Puts each HLS media playlist into the stored info, so a download by media id fetches segments only, no playlist.
import { Effect } from "effect"
import type { InfoObject } from "./downloadableInfo.ts"

/** A playlist's text, or null when it could not be had as asked (error, redirect, too large): yt-dlp then fetches it. */
export type FetchPlaylist = (url: string, headers: Readonly<Record<string, string>>) => Effect.Effect<string | null>

/** Real platforms list a handful of variants; a page listing hundreds is left to yt-dlp. */
const MAX_PLAYLISTS = 32

const isObject = (value: unknown): value is InfoObject => typeof value === "object" && value !== null && !Array.isArray(value)

const stringHeaders = (value: unknown): Record<string, string> =>
  isObject(value) ? Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : []))) : {}

/**
 * yt-dlp's native HLS downloader reads `hls_media_playlist_data` instead of requesting the format's URL, and still
 * resolves segments against that URL. Only m3u8_native formats of a finished (not live) stream get it: ffmpeg's
 * downloader ignores the field, and a live playlist changes. A playlist that fails to arrive is simply not embedded.
 */
export const embedHlsPlaylists = (entry: InfoObject, fetchPlaylist: FetchPlaylist): Effect.Effect<InfoObject> => {
  const formats = entry["formats"]
  if (!Array.isArray(formats) || entry["is_live"] === true) return Effect.succeed(entry)
  const wanted = formats.filter(
    (f): f is InfoObject =>
      isObject(f) && f["protocol"] === "m3u8_native" && typeof f["url"] === "string" && typeof f["hls_media_playlist_data"] !== "string"
  )
  if (wanted.length === 0 || wanted.length > MAX_PLAYLISTS) return Effect.succeed(entry)
  return Effect.forEach(
    wanted,
    (format) =>
      Effect.map(
        fetchPlaylist(format["url"] as string, { ...stringHeaders(entry["http_headers"]), ...stringHeaders(format["http_headers"]) }),
        (text) => [format, text] as const
      ),
    { concurrency: 4 }
  ).pipe(
    Effect.map((fetched) => {
      const data = new Map(fetched.filter(([, text]) => text !== null && text.startsWith("#EXTM3U")))
      return {
        ...entry,
        formats: formats.map((f) => {
          const text = isObject(f) ? data.get(f) : undefined
          return text === undefined || text === null ? f : { ...f, hls_media_playlist_data: text }
        })
      }
    })
  )
}

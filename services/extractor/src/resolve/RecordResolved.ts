// Record: the MediaResolved a resolve appends, for one media or (extension) for a playlist, and its append.
import { Effect } from "effect"
import type { MediaResolved, PlaylistEntry } from "@mds/shared/domain/media/MediaEvent"
import { recordMedia } from "@mds/shared/application/media/MediaFacts"
import type { mediaOwnerOf } from "@mds/shared/domain/media/MediaVisibility"
import { type MediaDescription, mediaEntry } from "../ytdlp/describeMedia.ts"
import { describeLive } from "../ytdlp/describeLive.ts"
import { describeSubtitles } from "../ytdlp/describeSubtitles.ts"
import type { YtDlpInfo } from "../ytdlp/YtDlpInfo.ts"
import { FORMAT_GRAMMAR_FORMATS } from "./playlistFormats.ts"
import { failWith } from "./ResolveFailure.ts"

/** Whose media it is: the project whose cookies read it, else anybody's. */
type MediaOwner = ReturnType<typeof mediaOwnerOf>

/** Extension: listed only when there are some, so media without subtitles look as before. */
const subtitlesOf = (info: YtDlpInfo) => {
  const subtitles = describeSubtitles(mediaEntry(info))
  return subtitles.length === 0 ? {} : { subtitles }
}

export const resolvedMedia = (media: {
  readonly mediaId: string
  readonly url: URL
  /** The platform whose extractor handled the media. */
  readonly handledBy: string
  readonly described: MediaDescription
  readonly thumbnail: string
  readonly info: YtDlpInfo
  readonly owner: MediaOwner
  readonly resolvedAt: number
  readonly expiresAt: number
}): MediaResolved => ({
  _tag: "MediaResolved",
  v: 1,
  mediaId: media.mediaId,
  url: media.url.href,
  webpageUrl: media.described.webpageUrl,
  platform: media.handledBy,
  type: media.described.type,
  title: media.described.title,
  thumbnail: media.thumbnail,
  duration: Math.max(0, Math.round(media.described.durationSeconds ?? 0)),
  author: media.described.author,
  formats: media.described.formats,
  resolvedAt: media.resolvedAt,
  expiresAt: media.expiresAt,
  ...subtitlesOf(media.info),
  ...media.owner,
  ...describeLive(mediaEntry(media.info))
})

/**
 * Extension: a playlist is recorded as media of type "playlist" with its entries and the format grammar; read with a
 * project's cookies, it is that project's like any media (its entries are what the cookies showed).
 */
export const resolvedPlaylist = (playlist: {
  readonly mediaId: string
  readonly url: URL
  readonly platform: string
  readonly info: YtDlpInfo
  readonly entries: ReadonlyArray<PlaylistEntry>
  readonly owner: MediaOwner
  readonly resolvedAt: number
  readonly expiresAt: number
}): MediaResolved => {
  const { info, url, entries } = playlist
  return {
    _tag: "MediaResolved",
    v: 1,
    mediaId: playlist.mediaId,
    url: url.href,
    webpageUrl: info.webpage_url ?? url.href,
    platform: playlist.platform,
    type: "playlist",
    title: info.title?.trim() || url.href,
    thumbnail: info.thumbnail ?? "",
    duration: entries.reduce((sum, entry) => sum + (entry.duration ?? 0), 0),
    author: { name: info.uploader ?? info.channel ?? "", username: info.uploader_id ?? info.channel_id ?? "" },
    formats: FORMAT_GRAMMAR_FORMATS,
    resolvedAt: playlist.resolvedAt,
    expiresAt: playlist.expiresAt,
    entries,
    ...playlist.owner
  }
}

/** Appends the media's MediaResolved; a resolve that cannot record it fails. */
export const recordResolved = (media: MediaResolved) =>
  recordMedia(media.mediaId)(media).pipe(
    Effect.mapError((error) => failWith("extraction_failed", `could not record the media: ${error.message}`)),
    Effect.as(media)
  )

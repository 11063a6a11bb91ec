// The resolved-media event, one subject per media id: mds.media.<mediaId>; the media never changes after it.
import { Schema } from "effect"
import { LiveStatus } from "./LiveStatus.ts"
import { SubtitleTrack } from "./SubtitleTrack.ts"

/** "playlist" (extension) only for a resolve that asked for playlists; its entries are listed, it has no file itself. */
export const MediaType = Schema.Literals(["video", "audio", "image", "playlist"])
export type MediaType = typeof MediaType.Type

export const MediaFormat = Schema.Struct({
  id: Schema.String,
  type: Schema.Literals(["video", "audio"]),
  quality: Schema.String,
  container: Schema.String
})
export type MediaFormat = typeof MediaFormat.Type

/** Extension: one entry of a playlist, flat (no formats): what a batch downloads. */
export const PlaylistEntry = Schema.Struct({
  /** Ours, derived from the entry's URL (what a batch names the entry by). */
  id: Schema.String,
  url: Schema.String,
  title: Schema.String,
  /** Whole seconds, when the playlist says. */
  duration: Schema.NullOr(Schema.Number),
  /**
   * Extension: the extractor that reads the entry and the entry's id there, as yt-dlp names them (`ie_key`, `id`): a
   * download archive knows the entry by them. Absent when the playlist does not say (and in events written before).
   */
  extractorKey: Schema.optionalKey(Schema.String),
  extractorId: Schema.optionalKey(Schema.String),
  /** Extension: when the entry was published (epoch ms), when the playlist says; absent otherwise and in events before. */
  publishedAt: Schema.optionalKey(Schema.Number)
})
export type PlaylistEntry = typeof PlaylistEntry.Type

export const MediaAuthor = Schema.Struct({
  name: Schema.String,
  username: Schema.String
})

export const MediaResolved = Schema.TaggedStruct("MediaResolved", {
  v: Schema.Literal(1),
  mediaId: Schema.String,
  /** The URL the client sent. */
  url: Schema.String,
  /** The page or file URL the extractor settled on. */
  webpageUrl: Schema.String,
  platform: Schema.String,
  type: MediaType,
  title: Schema.String,
  thumbnail: Schema.String,
  /** Whole seconds. */
  duration: Schema.Int,
  author: MediaAuthor,
  formats: Schema.Array(MediaFormat),
  resolvedAt: Schema.Number,
  expiresAt: Schema.Number,
  /** Extension: the subtitle languages; absent when there are none (and in events written before). */
  subtitles: Schema.optionalKey(Schema.Array(SubtitleTrack)),
  /** Extension: the entries of a playlist (type "playlist"), at most PLAYLIST_MAX_ENTRIES of them. */
  entries: Schema.optionalKey(Schema.Array(PlaylistEntry)),
  /**
   * Extension: set when the media or playlist was resolved with this project's cookies. Such media is the project's
   * alone (isMediaVisibleTo): no other project gets it from the resolve cache, by media_id or in a batch.
   */
  projectId: Schema.optionalKey(Schema.String),
  /**
   * Extension: yt-dlp's live_status; absent in events written before (read as `not_live`, `liveStatusOf`) and when the
   * extractor did not say.
   */
  liveStatus: Schema.optionalKey(LiveStatus),
  /** Extension: when an upcoming stream or premiere is announced to begin (epoch ms), when the platform says. */
  releaseAt: Schema.optionalKey(Schema.Number)
})
export type MediaResolved = typeof MediaResolved.Type

export const MediaEvent = Schema.Union([MediaResolved])
export type MediaEvent = typeof MediaEvent.Type

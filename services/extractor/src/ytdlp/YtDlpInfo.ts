// The part of yt-dlp's --dump-single-json output the extractor reads, decoded leniently (every field may be missing).
import { Schema } from "effect"

const maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

export const YtDlpFormat = Schema.Struct({
  format_id: maybe(Schema.String),
  url: maybe(Schema.String),
  ext: maybe(Schema.String),
  protocol: maybe(Schema.String),
  manifest_url: maybe(Schema.String),
  vcodec: maybe(Schema.String),
  acodec: maybe(Schema.String),
  audio_ext: maybe(Schema.String),
  video_ext: maybe(Schema.String),
  height: maybe(Schema.Number),
  width: maybe(Schema.Number),
  abr: maybe(Schema.Number),
  tbr: maybe(Schema.Number)
})
export type YtDlpFormat = typeof YtDlpFormat.Type

export const YtDlpThumbnail = Schema.Struct({
  url: Schema.String,
  preference: maybe(Schema.Number),
  width: maybe(Schema.Number),
  height: maybe(Schema.Number)
})

/** Extension: language -> the files yt-dlp can fetch for it (vtt, srt, ...). */
export const YtDlpSubtitles = Schema.Record(
  Schema.String,
  Schema.NullOr(Schema.Array(Schema.Struct({ ext: maybe(Schema.String), url: maybe(Schema.String), name: maybe(Schema.String) })))
)
export type YtDlpSubtitles = typeof YtDlpSubtitles.Type

const infoFields = {
  _type: maybe(Schema.String),
  id: maybe(Schema.String),
  title: maybe(Schema.String),
  fulltitle: maybe(Schema.String),
  duration: maybe(Schema.Number),
  uploader: maybe(Schema.String),
  uploader_id: maybe(Schema.String),
  channel: maybe(Schema.String),
  channel_id: maybe(Schema.String),
  creator: maybe(Schema.String),
  creators: maybe(Schema.Array(Schema.String)),
  artist: maybe(Schema.String),
  thumbnail: maybe(Schema.String),
  thumbnails: maybe(Schema.Array(YtDlpThumbnail)),
  webpage_url: maybe(Schema.String),
  original_url: maybe(Schema.String),
  extractor_key: maybe(Schema.String),
  /** Extension: a flat playlist entry names the extractor that would read it (`ie_key`), as yt-dlp's archive does. */
  ie_key: maybe(Schema.String),
  /** Epoch seconds and YYYYMMDD, when the platform says (flat entries of a feed carry the item's pubDate). */
  timestamp: maybe(Schema.Number),
  upload_date: maybe(Schema.String),
  release_timestamp: maybe(Schema.Number),
  /** Extension: not_live, is_live, is_upcoming, was_live, post_live (older extractors set only is_live/was_live). */
  live_status: maybe(Schema.String),
  is_live: maybe(Schema.Boolean),
  was_live: maybe(Schema.Boolean),
  url: maybe(Schema.String),
  ext: maybe(Schema.String),
  protocol: maybe(Schema.String),
  vcodec: maybe(Schema.String),
  acodec: maybe(Schema.String),
  height: maybe(Schema.Number),
  width: maybe(Schema.Number),
  formats: maybe(Schema.Array(YtDlpFormat)),
  subtitles: maybe(YtDlpSubtitles),
  automatic_captions: maybe(YtDlpSubtitles)
}

/** A playlist answer (some pages embed several videos) carries its entries; the first one is the media. */
export const YtDlpInfo = Schema.Struct({
  ...infoFields,
  entries: maybe(Schema.Array(Schema.NullOr(Schema.Struct(infoFields))))
})
export type YtDlpInfo = typeof YtDlpInfo.Type
export type YtDlpEntry = Omit<YtDlpInfo, "entries">

export const decodeYtDlpInfo = Schema.decodeUnknownEffect(Schema.fromJsonString(YtDlpInfo))

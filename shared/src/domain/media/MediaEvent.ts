// The resolved-media event, one subject per media id: mds.media.<mediaId>; the media never changes after it.
import { Schema } from "effect"

export const MediaType = Schema.Literals(["video", "audio", "image"])
export type MediaType = typeof MediaType.Type

export const MediaFormat = Schema.Struct({
  id: Schema.String,
  type: Schema.Literals(["video", "audio"]),
  quality: Schema.String,
  container: Schema.String
})
export type MediaFormat = typeof MediaFormat.Type

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
  /**
   * Extension: set when the media was resolved with this project's cookies. Such media is the project's alone: no
   * other project gets it from the resolve cache or by media_id.
   */
  projectId: Schema.optionalKey(Schema.String)
})
export type MediaResolved = typeof MediaResolved.Type

export const MediaEvent = Schema.Union([MediaResolved])
export type MediaEvent = typeof MediaEvent.Type

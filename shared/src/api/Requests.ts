// The /v1 request bodies: the gateway decodes with these schemas and the OpenAPI document is generated from them.
import { Schema } from "effect"

export const MAX_URL_LENGTH = 2048

export const HttpUrlString = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` })
).annotate({ description: "An absolute http or https URL without user:password." })

export const ResolveRequest = Schema.Struct({
  url: HttpUrlString
}).annotate({ identifier: "ResolveRequest", description: "The public page or file URL of the media." })
export type ResolveRequest = typeof ResolveRequest.Type

// optionalKey, not optional: a JSON null is a wrong type here, not an absent field.
export const DownloadRequest = Schema.Struct({
  format: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })).annotate({
    description: "video_best, video_<height>p, audio_best, audio_m4a or audio_mp3 (with media_id: one of its formats)."
  }),
  media_id: Schema.optionalKey(Schema.String.annotate({ description: "data.id of a resolve response." })),
  url: Schema.optionalKey(HttpUrlString)
}).annotate({
  identifier: "DownloadRequest",
  description: "format plus exactly one of media_id and url."
})
export type DownloadRequest = typeof DownloadRequest.Type

// Request and reply of the resolve RPC (core NATS request/reply on mds.rpc.media.resolve, queue group "extractor").
import { Schema } from "effect"
import { MediaResolved } from "./MediaEvent.ts"

export const ResolveRequest = Schema.Struct({
  url: Schema.String,
  /** The asking project: its cookies for the platform, if it stored any, go with the extraction. */
  projectId: Schema.optionalKey(Schema.String)
})
export type ResolveRequest = typeof ResolveRequest.Type

export const ResolveFailureCode = Schema.Literals([
  "unsupported_platform",
  "media_unavailable",
  "url_not_allowed",
  "extraction_failed",
  "extraction_timeout"
])
export type ResolveFailureCode = typeof ResolveFailureCode.Type

export const ResolveSucceeded = Schema.TaggedStruct("ResolveSucceeded", {
  media: MediaResolved
})

export const ResolveRejected = Schema.TaggedStruct("ResolveRejected", {
  code: ResolveFailureCode,
  message: Schema.String
})

export const ResolveReply = Schema.Union([ResolveSucceeded, ResolveRejected])
export type ResolveReply = typeof ResolveReply.Type

// Failures that exist only at the HTTP edge (authentication, request shape, upstream availability).
import { Schema } from "effect"

export class MissingApiKey extends Schema.TaggedError<MissingApiKey>()("MissingApiKey", {
  message: Schema.String
}) {}

export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", {
  message: Schema.String
}) {}

export class RevokedApiKey extends Schema.TaggedError<RevokedApiKey>()("RevokedApiKey", {
  keyId: Schema.String
}) {}

export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  scope: Schema.String
}) {}

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String
}) {}

/** Extension: download fields that are each well-formed but do not fit together or with the format. */
export class InvalidOptions extends Schema.TaggedError<InvalidOptions>()("InvalidOptions", {
  message: Schema.String
}) {}

/** Extension: dates that are each written YYYY-MM-DD but are no calendar day, or no range the endpoint serves. */
export class InvalidDateRange extends Schema.TaggedError<InvalidDateRange>()("InvalidDateRange", {
  message: Schema.String
}) {}

export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", {
  message: Schema.String
}) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  limitBytes: Schema.Number
}) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  contentType: Schema.String
}) {}

export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String
}) {}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  method: Schema.String,
  allow: Schema.Array(Schema.String)
}) {}

/** A dependency (NATS, the extractor fleet, the catalog) cannot serve the request right now. */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String
}) {}

export class ExtractionFailed extends Schema.TaggedError<ExtractionFailed>()("ExtractionFailed", {
  message: Schema.String
}) {}

export class ExtractionTimeout extends Schema.TaggedError<ExtractionTimeout>()("ExtractionTimeout", {
  message: Schema.String
}) {}

export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {}) {}

export class LinkExpired extends Schema.TaggedError<LinkExpired>()("LinkExpired", {}) {}

/** A request for a platform whose breaker is open: 503 platform_paused with Retry-After. */
export class PlatformPausedNow extends Schema.TaggedError<PlatformPausedNow>()("PlatformPausedNow", {
  platform: Schema.String,
  until: Schema.Number,
  retryAfterSeconds: Schema.Int
}) {}

/** Extension: a subscription's URL that resolves as one media, not as a playlist, channel or feed. */
export class NotAPlaylist extends Schema.TaggedError<NotAPlaylist>()("NotAPlaylist", { url: Schema.String }) {}

export type GatewayFailure =
  | MissingApiKey
  | InvalidApiKey
  | RevokedApiKey
  | InsufficientScope
  | InvalidRequest
  | InvalidOptions
  | InvalidDateRange
  | InvalidJson
  | PayloadTooLarge
  | UnsupportedMediaType
  | RouteNotFound
  | MethodNotAllowed
  | ServiceUnavailable
  | ExtractionFailed
  | ExtractionTimeout
  | InvalidSignature
  | LinkExpired

// Failures that exist only at the HTTP edge (request shape, upstream availability; the key check's are auth/AuthErrors.ts).
import { Schema } from "effect"
import type { InsufficientScope, InvalidApiKey, MissingApiKey, RevokedApiKey } from "../auth/AuthErrors.ts"

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String
}) {}

/** Extension: download fields that are each well-formed but do not fit together or with the format. */
export class InvalidOptions extends Schema.TaggedError<InvalidOptions>()("InvalidOptions", {
  message: Schema.String
}) {}

/** Extension: a destination path template that cannot be used; the message gives the reason. */
export class InvalidPathTemplate extends Schema.TaggedError<InvalidPathTemplate>()("InvalidPathTemplate", {
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

/** Extension: the project has as many live subscriptions as it may (SUBSCRIPTIONS_PER_PROJECT, or its own setting). */
export class SubscriptionLimitReached extends Schema.TaggedError<SubscriptionLimitReached>()("SubscriptionLimitReached", {
  limit: Schema.Int
}) {}

/** Extension: the project has as many destinations as it may (DESTINATIONS_PER_PROJECT). */
export class DestinationLimitReached extends Schema.TaggedError<DestinationLimitReached>()("DestinationLimitReached", {
  limit: Schema.Int
}) {}

export type GatewayFailure =
  | MissingApiKey
  | InvalidApiKey
  | RevokedApiKey
  | InsufficientScope
  | InvalidRequest
  | InvalidOptions
  | InvalidPathTemplate
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

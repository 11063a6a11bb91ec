// Failures of the request limits: too many requests for a key, or a job polled faster than the spec allows.
import { Schema } from "effect"

export class RateLimitExceeded extends Schema.TaggedError<RateLimitExceeded>()("RateLimitExceeded", {
  limit: Schema.Number,
  windowSeconds: Schema.Number,
  /** Whole seconds until the window resets (Retry-After). */
  retryAfterSeconds: Schema.Number,
  /** What was counted: a key's requests (absent), or failed authentications from one address or key prefix. */
  counted: Schema.optional(Schema.Literal("failed_authentications"))
}) {}

/** The project holds `limit` event streams open on this gateway already. */
export class TooManyEventStreams extends Schema.TaggedError<TooManyEventStreams>()("TooManyEventStreams", {
  limit: Schema.Number
}) {}

export class PollingTooFast extends Schema.TaggedError<PollingTooFast>()("PollingTooFast", {
  jobId: Schema.String,
  minIntervalSeconds: Schema.Number,
  retryAfterSeconds: Schema.Number
}) {}

// Failures of the key check: no key, an unknown or revoked one, or a key without the scope a route needs.
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

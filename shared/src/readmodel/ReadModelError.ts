// Failure of a read-model store (any adapter).
import { Schema } from "effect"

export class ReadModelError extends Schema.TaggedError<ReadModelError>()("ReadModelError", {
  operation: Schema.String,
  message: Schema.String,
  /** The store did not answer (down, unreachable, timed out): retried, never held against the message that met it. */
  unavailable: Schema.optionalKey(Schema.Boolean)
}) {}

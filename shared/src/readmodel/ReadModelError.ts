// Failure of a read-model store (any adapter).
import { Schema } from "effect"

export class ReadModelError extends Schema.TaggedError<ReadModelError>()("ReadModelError", {
  operation: Schema.String,
  message: Schema.String
}) {}

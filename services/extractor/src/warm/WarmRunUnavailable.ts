// Why a run cannot start in the warm runner, and so starts cold.
import { Schema } from "effect"

export class WarmRunUnavailable extends Schema.TaggedError<WarmRunUnavailable>()("WarmRunUnavailable", {
  reason: Schema.String,
  /** True when every run starts cold by configuration (said once at start): logged per run at debug level only. */
  expected: Schema.Boolean
}) {}

export const unavailable = (reason: string, expected = false) => new WarmRunUnavailable({ reason, expected })

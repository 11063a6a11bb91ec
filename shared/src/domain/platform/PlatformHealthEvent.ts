// Platform health events (extension), one subject per platform: mds.platform.health.<platformId>. Each event carries
// the whole state after it, so the last event is enough to know a platform's health.
import { Schema } from "effect"

export const PlatformOutcome = Schema.Literals(["ok", "failed", "blocked"])
export type PlatformOutcome = typeof PlatformOutcome.Type

export const PlatformHealthState = Schema.Struct({
  /** The latest outcomes, oldest first (bounded by the policy's window). */
  recent: Schema.Array(Schema.Struct({ outcome: PlatformOutcome, at: Schema.Number })),
  /** Blocked outcomes in a row since the last other outcome or pause. */
  consecutiveBlocks: Schema.Int,
  pausedUntil: Schema.NullOr(Schema.Number)
})
export type PlatformHealthState = typeof PlatformHealthState.Type

export const PlatformOutcomeRecorded = Schema.TaggedStruct("PlatformOutcomeRecorded", {
  v: Schema.Literal(1),
  platform: Schema.String,
  outcome: PlatformOutcome,
  at: Schema.Number,
  state: PlatformHealthState
})
export type PlatformOutcomeRecorded = typeof PlatformOutcomeRecorded.Type

/** The circuit breaker opened: no new work for the platform until `until`. */
export const PlatformPaused = Schema.TaggedStruct("PlatformPaused", {
  v: Schema.Literal(1),
  platform: Schema.String,
  until: Schema.Number,
  reason: Schema.String,
  at: Schema.Number,
  state: PlatformHealthState
})
export type PlatformPaused = typeof PlatformPaused.Type

export const PlatformHealthEvent = Schema.Union([PlatformOutcomeRecorded, PlatformPaused])
export type PlatformHealthEvent = typeof PlatformHealthEvent.Type

// Events of a project's admission aggregate (its job slots), one subject per project: mds.admission.<projectId>.
import { Schema } from "effect"

export const HeldSlot = Schema.Struct({
  jobId: Schema.String,
  /** Epoch ms after which the slot frees itself: the job's lifetime ends then. */
  expiresAt: Schema.Number
})
export type HeldSlot = typeof HeldSlot.Type

/**
 * Each event also records the slots held after it (`held`). The state is therefore the last event
 * on the subject alone, which lets the gateway load it with one direct get instead of a replay.
 */
export const SlotClaimed = Schema.TaggedStruct("SlotClaimed", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  jobId: Schema.String,
  at: Schema.Number,
  expiresAt: Schema.Number,
  held: Schema.Array(HeldSlot)
})
export type SlotClaimed = typeof SlotClaimed.Type

export const SlotReleaseReason = Schema.Literals(["completed", "failed", "expired", "canceled"])
export type SlotReleaseReason = typeof SlotReleaseReason.Type

export const SlotReleased = Schema.TaggedStruct("SlotReleased", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  jobId: Schema.String,
  reason: SlotReleaseReason,
  at: Schema.Number,
  held: Schema.Array(HeldSlot)
})
export type SlotReleased = typeof SlotReleased.Type

export const AdmissionEvent = Schema.Union([SlotClaimed, SlotReleased])
export type AdmissionEvent = typeof AdmissionEvent.Type

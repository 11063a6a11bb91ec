// Events of a project's admission aggregate (its job slots), one subject per project: mds.admission.<projectId>.
import { Schema } from "effect"
import { QuotaUsage } from "./Quota.ts"

export const HeldSlot = Schema.Struct({
  jobId: Schema.String,
  /** Epoch ms after which the slot frees itself: the job's lifetime ends then. */
  expiresAt: Schema.Number
})
export type HeldSlot = typeof HeldSlot.Type

/**
 * Each event also records the slots held after it (`held`) and, from v2 on, the quota usage after it (`usage`). The
 * state is therefore the last event on the subject alone, which lets the gateway load it with one direct get instead
 * of a replay. A v1 event (written before quotas) has no usage: the project's counts start from zero after it.
 */
export const SlotClaimed = Schema.TaggedStruct("SlotClaimed", {
  v: Schema.Literals([1, 2]),
  projectId: Schema.String,
  jobId: Schema.String,
  at: Schema.Number,
  expiresAt: Schema.Number,
  held: Schema.Array(HeldSlot),
  usage: Schema.optionalKey(QuotaUsage)
})
export type SlotClaimed = typeof SlotClaimed.Type

export const SlotReleaseReason = Schema.Literals(["completed", "failed", "expired", "canceled"])
export type SlotReleaseReason = typeof SlotReleaseReason.Type

export const SlotReleased = Schema.TaggedStruct("SlotReleased", {
  v: Schema.Literals([1, 2]),
  projectId: Schema.String,
  jobId: Schema.String,
  reason: SlotReleaseReason,
  at: Schema.Number,
  held: Schema.Array(HeldSlot),
  /** v2: the size of the file a completed job stored, counted toward the month of the release. */
  bytes: Schema.optionalKey(Schema.Number),
  usage: Schema.optionalKey(QuotaUsage)
})
export type SlotReleased = typeof SlotReleased.Type

export const AdmissionEvent = Schema.Union([SlotClaimed, SlotReleased])
export type AdmissionEvent = typeof AdmissionEvent.Type

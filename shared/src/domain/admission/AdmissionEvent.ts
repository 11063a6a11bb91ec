// Events of a project's admission aggregate (its job slots), one subject per project: mds.admission.<projectId>.
import { Schema } from "effect"
import { QuotaUsage } from "./Quota.ts"

export const HeldSlot = Schema.Struct({
  jobId: Schema.String,
  /** Epoch ms after which the slot frees itself: the job's lifetime ends then. */
  expiresAt: Schema.Number,
  /** The try of the job the slot is for: absent for its first, n for its n-th retry (each try claims its own). */
  retry: Schema.optionalKey(Schema.Int),
  /**
   * The claim that took the slot (a random id per admission) and when: the job records the claim it was admitted
   * with, so a slot claimed for a job that was admitted by another claim is known for what it is (claimed in vain).
   * Absent in slots claimed before claims had ids.
   */
  claim: Schema.optionalKey(Schema.String),
  claimedAt: Schema.optionalKey(Schema.Number),
  /**
   * false from the claim until the job's try is recorded (JobQueued, JobRetried) and its admission confirmed: only
   * such a slot can be freed as an orphan (its claimer died between the two writes). Absent: recorded (slots claimed
   * before confirmations were recorded never count as orphans).
   */
  recorded: Schema.optionalKey(Schema.Boolean)
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
  /** The try claimed for (absent: the job's first). */
  retry: Schema.optionalKey(Schema.Int),
  /** The claim's id (absent before claims had ids). */
  claim: Schema.optionalKey(Schema.String),
  at: Schema.Number,
  expiresAt: Schema.Number,
  held: Schema.Array(HeldSlot),
  usage: Schema.optionalKey(QuotaUsage)
})
export type SlotClaimed = typeof SlotClaimed.Type

/**
 * Why a slot is freed: its try ended (completed, failed, expired, canceled), or it was claimed in vain (unused: the
 * job it was claimed for never came of it, or was admitted by another claim), which takes the claim back from the day's
 * job count.
 */
/** The job's try was recorded after its claim: its slot is no orphan any more. */
export const SlotConfirmed = Schema.TaggedStruct("SlotConfirmed", {
  v: Schema.Literal(2),
  projectId: Schema.String,
  jobId: Schema.String,
  retry: Schema.optionalKey(Schema.Int),
  at: Schema.Number,
  held: Schema.Array(HeldSlot),
  usage: QuotaUsage
})
export type SlotConfirmed = typeof SlotConfirmed.Type

export const SlotReleaseReason = Schema.Literals(["completed", "failed", "expired", "canceled", "unused"])
export type SlotReleaseReason = typeof SlotReleaseReason.Type

export const SlotReleased = Schema.TaggedStruct("SlotReleased", {
  v: Schema.Literals([1, 2]),
  projectId: Schema.String,
  jobId: Schema.String,
  /** The try whose slot is freed (absent: the job's first). */
  retry: Schema.optionalKey(Schema.Int),
  reason: SlotReleaseReason,
  at: Schema.Number,
  held: Schema.Array(HeldSlot),
  /** v2: the size of the file a completed job stored, counted toward the month of the release. */
  bytes: Schema.optionalKey(Schema.Number),
  usage: Schema.optionalKey(QuotaUsage)
})
export type SlotReleased = typeof SlotReleased.Type

export const AdmissionEvent = Schema.Union([SlotClaimed, SlotConfirmed, SlotReleased])

/** The event frees one of the project's slots (what a reactor waiting for a free slot listens for). */
export const freesSlot = (event: AdmissionEvent): boolean => event._tag === "SlotReleased"
export type AdmissionEvent = typeof AdmissionEvent.Type

// Events of one Idempotency-Key of one project (extension): mds.idempotency.<projectId>.<keyHash>.
import { Schema } from "effect"

const V1 = Schema.Literal(1)

/** A request took the key; `requestHash` identifies its body so that a different body can be refused. */
export const IdempotencyKeyClaimed = Schema.TaggedStruct("IdempotencyKeyClaimed", {
  v: V1,
  projectId: Schema.String,
  requestHash: Schema.String,
  at: Schema.Number
})
export type IdempotencyKeyClaimed = typeof IdempotencyKeyClaimed.Type

/** The claiming request created this job: every later request with the key and body answers with it. */
export const IdempotencyKeyBound = Schema.TaggedStruct("IdempotencyKeyBound", {
  v: V1,
  jobId: Schema.String,
  at: Schema.Number
})
export type IdempotencyKeyBound = typeof IdempotencyKeyBound.Type

/** The claiming request failed (e.g. 429): nothing was created, so the key is free for a retry. */
export const IdempotencyKeyReleased = Schema.TaggedStruct("IdempotencyKeyReleased", {
  v: V1,
  at: Schema.Number
})
export type IdempotencyKeyReleased = typeof IdempotencyKeyReleased.Type

export const IdempotencyEvent = Schema.Union([IdempotencyKeyClaimed, IdempotencyKeyBound, IdempotencyKeyReleased])
export type IdempotencyEvent = typeof IdempotencyEvent.Type

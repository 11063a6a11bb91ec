// Extension: events of the subscription aggregate (follow a playlist, channel or feed; queue what is new), one subject each.
import { Schema } from "effect"
import { DownloadOptions } from "../job/DownloadOptions.ts"

const V1 = Schema.Literal(1)

/** What a subscription lets through of the new entries; every field optional, absent means no limit. */
export const SubscriptionFilters = Schema.Struct({
  titleContains: Schema.optionalKey(Schema.String),
  minDurationSeconds: Schema.optionalKey(Schema.Number),
  maxDurationSeconds: Schema.optionalKey(Schema.Number),
  /** Epoch ms: entries published before are let go (entries without a date pass). */
  publishedAfter: Schema.optionalKey(Schema.Number)
})
export type SubscriptionFilters = typeof SubscriptionFilters.Type

/**
 * One entry a check queued: its archive key (how the project's download archive knows it), its entry in the check's
 * batch (which names its job) and where it is.
 */
export const QueuedEntry = Schema.Struct({
  archiveKey: Schema.String,
  entryId: Schema.String,
  url: Schema.String,
  title: Schema.String
})
export type QueuedEntry = typeof QueuedEntry.Type

export const SubscriptionCreated = Schema.TaggedStruct("SubscriptionCreated", {
  v: V1,
  subscriptionId: Schema.String,
  projectId: Schema.String,
  url: Schema.String,
  platform: Schema.String,
  format: Schema.String,
  options: Schema.optionalKey(DownloadOptions),
  checkEveryMs: Schema.Number,
  filters: SubscriptionFilters,
  /** How many of the newest entries found by the first check are queued at once (0: only what appears later). */
  backfill: Schema.Number,
  createdAt: Schema.Number
})
export type SubscriptionCreated = typeof SubscriptionCreated.Type

/**
 * A check succeeded: what it found, and the archive keys of entries seen for the first time (the first check's are the
 * baseline: later checks call new only what is not among every key seen before).
 */
export const SubscriptionChecked = Schema.TaggedStruct("SubscriptionChecked", {
  v: V1,
  subscriptionId: Schema.String,
  at: Schema.Number,
  found: Schema.Number,
  new: Schema.Number,
  filtered: Schema.Number,
  queued: Schema.Number,
  seen: Schema.Array(Schema.String),
  nextCheckAt: Schema.Number
})
export type SubscriptionChecked = typeof SubscriptionChecked.Type

/** The check's new entries went to the project's slots as one batch (fed like any batch: two slots, pacing, cookies). */
export const SubscriptionEntriesQueued = Schema.TaggedStruct("SubscriptionEntriesQueued", {
  v: V1,
  subscriptionId: Schema.String,
  batchId: Schema.String,
  entries: Schema.Array(QueuedEntry),
  at: Schema.Number
})
export type SubscriptionEntriesQueued = typeof SubscriptionEntriesQueued.Type

export const CheckError = Schema.Struct({ code: Schema.String, message: Schema.String })
export type CheckError = typeof CheckError.Type

/** A check failed; it is tried again with backoff. `failuresInARow` counts this one. */
export const SubscriptionCheckFailed = Schema.TaggedStruct("SubscriptionCheckFailed", {
  v: V1,
  subscriptionId: Schema.String,
  at: Schema.Number,
  error: CheckError,
  failuresInARow: Schema.Number,
  nextCheckAt: Schema.Number
})
export type SubscriptionCheckFailed = typeof SubscriptionCheckFailed.Type

/** The third failure in a row: the subscription is failing (and the project's webhook hears of it) until a check succeeds. */
export const SubscriptionFailing = Schema.TaggedStruct("SubscriptionFailing", {
  v: V1,
  subscriptionId: Schema.String,
  error: CheckError,
  at: Schema.Number
})
export type SubscriptionFailing = typeof SubscriptionFailing.Type

/** A client asked for a check now (or resumed the subscription): the next check is due at `dueAt`. */
export const SubscriptionCheckDue = Schema.TaggedStruct("SubscriptionCheckDue", {
  v: V1,
  subscriptionId: Schema.String,
  dueAt: Schema.Number
})
export type SubscriptionCheckDue = typeof SubscriptionCheckDue.Type

export const SubscriptionPaused = Schema.TaggedStruct("SubscriptionPaused", { v: V1, subscriptionId: Schema.String, at: Schema.Number })
export type SubscriptionPaused = typeof SubscriptionPaused.Type

export const SubscriptionResumed = Schema.TaggedStruct("SubscriptionResumed", { v: V1, subscriptionId: Schema.String, at: Schema.Number })
export type SubscriptionResumed = typeof SubscriptionResumed.Type

export const SubscriptionRemoved = Schema.TaggedStruct("SubscriptionRemoved", { v: V1, subscriptionId: Schema.String, at: Schema.Number })
export type SubscriptionRemoved = typeof SubscriptionRemoved.Type

export const SubscriptionEvent = Schema.Union([
  SubscriptionCreated,
  SubscriptionChecked,
  SubscriptionEntriesQueued,
  SubscriptionCheckFailed,
  SubscriptionFailing,
  SubscriptionCheckDue,
  SubscriptionPaused,
  SubscriptionResumed,
  SubscriptionRemoved
])
export type SubscriptionEvent = typeof SubscriptionEvent.Type

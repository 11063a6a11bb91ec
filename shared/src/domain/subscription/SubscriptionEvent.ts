// Extension: events of the subscription aggregate (follow a playlist, channel or feed; queue what is new), one subject each.
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "../job/DownloadOptions.ts"
import { SubscriptionRetention } from "./SubscriptionRetention.ts"

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

/**
 * What a subscription is made of, written once: the command that creates it carries these, its SubscriptionCreated
 * records them, and its state keeps them.
 */
export const SubscriptionDefinition = Schema.Struct({
  subscriptionId: Schema.String,
  projectId: Schema.String,
  url: Schema.String,
  platform: Schema.String,
  format: FormatId,
  options: Schema.optionalKey(DownloadOptions),
  checkEveryMs: Schema.Number,
  filters: SubscriptionFilters,
  /** How many of the newest entries found by the first check are queued at once (0: only what appears later). */
  backfill: Schema.Number,
  /** Extension: which delivered entries the destination keeps (only with a destination); absent: all. */
  retention: Schema.optionalKey(SubscriptionRetention)
})
export type SubscriptionDefinition = typeof SubscriptionDefinition.Type

export const SubscriptionCreated = Schema.TaggedStruct("SubscriptionCreated", {
  v: V1,
  ...SubscriptionDefinition.fields,
  createdAt: Schema.Number
})
export type SubscriptionCreated = typeof SubscriptionCreated.Type

export const CheckError = Schema.Struct({ code: Schema.String, message: Schema.String })
export type CheckError = typeof CheckError.Type

/**
 * A check resolved the feed and decided, before it claims anything, what it will queue: recorded first (conditional on
 * the subscription's sequence), so every run of the check (a rerun after a crash, a second run after a lock lapsed)
 * follows this one plan instead of the feed as it is then, and a removal or pause recorded before it stops the check.
 */
export const SubscriptionCheckPlanned = Schema.TaggedStruct("SubscriptionCheckPlanned", {
  v: V1,
  subscriptionId: Schema.String,
  /** The due time of the check: its id. */
  dueAt: Schema.Number,
  at: Schema.Number,
  /** The playlist the check resolved (its batch's media), and the platform that handled it. */
  mediaId: Schema.String,
  platform: Schema.String,
  found: Schema.Number,
  new: Schema.Number,
  filtered: Schema.Number,
  /** Archive keys seen for the first time (the first check's are the baseline). */
  seen: Schema.Array(Schema.String),
  /** Digests of seen keys the feed still lists, moved to the newest end so they are not let go (SeenKeys.ts). */
  refreshed: Schema.Array(Schema.String),
  /** New entries that pass the filters: each is claimed in the project's archive; those this check owns are queued or wait. */
  candidates: Schema.Array(QueuedEntry),
  /** Archive keys of the subscription's waiting entries this check queues again. */
  requeue: Schema.Array(Schema.String),
  /** At most this many entries go into the check's batch (the jobs the project's quota leaves today); null: all. */
  limit: Schema.NullOr(Schema.Number),
  /** Why the entries past `limit` wait for a later check (the quota used up), or null. */
  hold: Schema.NullOr(CheckError)
})
export type SubscriptionCheckPlanned = typeof SubscriptionCheckPlanned.Type

/**
 * A check succeeded: what it found. **v1**: the archive keys of entries seen for the first time are `seen` (the first
 * check's are the baseline: later checks call new only what is not among every key seen before), and no plan preceded
 * it. **v2** (written now): it ends the check's plan (`dueAt`); `seen` is empty (the plan has them), and `waiting`
 * lists the new entries the check owns but did not queue (held back by the quota), which later checks queue.
 */
export const SubscriptionChecked = Schema.TaggedStruct("SubscriptionChecked", {
  v: Schema.Literals([1, 2]),
  subscriptionId: Schema.String,
  at: Schema.Number,
  found: Schema.Number,
  new: Schema.Number,
  filtered: Schema.Number,
  queued: Schema.Number,
  seen: Schema.Array(Schema.String),
  nextCheckAt: Schema.Number,
  dueAt: Schema.optionalKey(Schema.Number),
  waiting: Schema.optionalKey(Schema.Array(QueuedEntry))
})
export type SubscriptionChecked = typeof SubscriptionChecked.Type

/**
 * The check's entries went to the project's slots as one batch (fed like any batch: two slots, pacing, cookies).
 * **v1**: the entries were done once queued. **v2** (written now): each entry stays the subscription's until its
 * download completed or it was given up (SubscriptionEntriesSettled); one that fails retryably, or is never fed, is
 * queued again by a later check.
 */
export const SubscriptionEntriesQueued = Schema.TaggedStruct("SubscriptionEntriesQueued", {
  v: Schema.Literals([1, 2]),
  subscriptionId: Schema.String,
  batchId: Schema.String,
  entries: Schema.Array(QueuedEntry),
  at: Schema.Number
})
export type SubscriptionEntriesQueued = typeof SubscriptionEntriesQueued.Type

/** What became of one entry: done (downloaded, given up) or waiting again for a later check. */
export const EntryOutcome = Schema.Struct({
  archiveKey: Schema.String,
  /** The batch it was queued in; null for an entry that waited in none. */
  batchId: Schema.NullOr(Schema.String),
  result: Schema.Literals(["downloaded", "given_up", "waiting"]),
  /** A run of its job failed (it counts toward the two tries an entry gets). */
  failed: Schema.Boolean,
  /** Why it was given up, or why it waits; null for a download. */
  reason: Schema.NullOr(CheckError),
  /** The job that downloaded it or failed, if one ran. */
  jobId: Schema.NullOr(Schema.String)
})
export type EntryOutcome = typeof EntryOutcome.Type

/** Entries the subscription queued reached an outcome (read from their batches and jobs), or wait again. */
export const SubscriptionEntriesSettled = Schema.TaggedStruct("SubscriptionEntriesSettled", {
  v: V1,
  subscriptionId: Schema.String,
  outcomes: Schema.Array(EntryOutcome),
  at: Schema.Number
})
export type SubscriptionEntriesSettled = typeof SubscriptionEntriesSettled.Type

/**
 * One entry the subscription delivered into its destination, as its retention needs it once the job's own records are
 * gone (a job lives hours, a library months): the job, the destination, and the media's and its own sidecars' paths.
 */
export const LibraryEntry = Schema.Struct({
  jobId: Schema.String,
  destinationId: Schema.String,
  /** The media and its own sidecars (removablePaths), never a show's shared file. */
  paths: Schema.Array(Schema.String),
  deliveredAt: Schema.Number
})
export type LibraryEntry = typeof LibraryEntry.Type

/**
 * A retained subscription's entries were delivered (read from their jobs while those live): its library, which its
 * retention rule is applied to, holds them until they are removed.
 */
export const SubscriptionEntriesDelivered = Schema.TaggedStruct("SubscriptionEntriesDelivered", {
  v: V1,
  subscriptionId: Schema.String,
  entries: Schema.Array(LibraryEntry),
  at: Schema.Number
})
export type SubscriptionEntriesDelivered = typeof SubscriptionEntriesDelivered.Type

/** Retention removed these entries' files from the destination: they leave the subscription's library. */
export const SubscriptionEntriesRemoved = Schema.TaggedStruct("SubscriptionEntriesRemoved", {
  v: V1,
  subscriptionId: Schema.String,
  jobIds: Schema.Array(Schema.String),
  at: Schema.Number
})
export type SubscriptionEntriesRemoved = typeof SubscriptionEntriesRemoved.Type

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
  SubscriptionCheckPlanned,
  SubscriptionChecked,
  SubscriptionEntriesQueued,
  SubscriptionEntriesSettled,
  SubscriptionCheckFailed,
  SubscriptionFailing,
  SubscriptionCheckDue,
  SubscriptionPaused,
  SubscriptionResumed,
  SubscriptionRemoved,
  SubscriptionEntriesDelivered,
  SubscriptionEntriesRemoved
])
export type SubscriptionEvent = typeof SubscriptionEvent.Type

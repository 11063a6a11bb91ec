// Extension: events of the batch aggregate (a format for chosen entries of a playlist), one subject per batch.
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "../job/DownloadOptions.ts"

const V1 = Schema.Literal(1)

/** One playlist entry to download: where it is, and what to call it while it waits. */
export const BatchEntry = Schema.Struct({
  entryId: Schema.String,
  url: Schema.String,
  title: Schema.String
})
export type BatchEntry = typeof BatchEntry.Type

export const BatchCreated = Schema.TaggedStruct("BatchCreated", {
  v: V1,
  batchId: Schema.String,
  projectId: Schema.String,
  mediaId: Schema.String,
  platform: Schema.String,
  format: FormatId,
  options: Schema.optionalKey(DownloadOptions),
  /** Extension: the subscription whose check made the batch; the feeder starts its entries only as it lets (FeedGate). */
  subscriptionId: Schema.optionalKey(Schema.String),
  /** In the order they are fed to the project's slots. */
  entries: Schema.Array(BatchEntry),
  createdAt: Schema.Number,
  expiresAt: Schema.Number
})
export type BatchCreated = typeof BatchCreated.Type

/** The process manager queued the entry's job (it holds one of the project's slots). */
export const BatchEntryQueued = Schema.TaggedStruct("BatchEntryQueued", {
  v: V1,
  batchId: Schema.String,
  entryId: Schema.String,
  jobId: Schema.String,
  at: Schema.Number
})
export type BatchEntryQueued = typeof BatchEntryQueued.Type

export const BatchEntryOutcome = Schema.Literals(["completed", "failed"])
export type BatchEntryOutcome = typeof BatchEntryOutcome.Type

/**
 * The entry's job ended (failed covers canceled and expired jobs too), for good as far as the feeder can tell: no
 * automatic retry of it is due. `retry` is the job's try that ended (absent: its first); a later try's end replaces it.
 */
export const BatchEntryFinished = Schema.TaggedStruct("BatchEntryFinished", {
  v: V1,
  batchId: Schema.String,
  entryId: Schema.String,
  jobId: Schema.String,
  outcome: BatchEntryOutcome,
  retry: Schema.optionalKey(Schema.Int),
  at: Schema.Number
})
export type BatchEntryFinished = typeof BatchEntryFinished.Type

/** The entry's finished job was retried (by a client, or automatically): the entry is queued again, on try `retry`. */
export const BatchEntryRetried = Schema.TaggedStruct("BatchEntryRetried", {
  v: V1,
  batchId: Schema.String,
  entryId: Schema.String,
  jobId: Schema.String,
  retry: Schema.Int,
  at: Schema.Number
})
export type BatchEntryRetried = typeof BatchEntryRetried.Type

/** No further entry is queued; the process manager cancels the entries' running jobs. */
export const BatchCanceled = Schema.TaggedStruct("BatchCanceled", {
  v: V1,
  batchId: Schema.String,
  at: Schema.Number
})
export type BatchCanceled = typeof BatchCanceled.Type

/**
 * The batch ended (its expiresAt passed) with these entries never fed: they fail with the code `expired`. A job
 * queued for one of them after all (a feed that raced the end) still counts: its BatchEntryQueued follows.
 */
export const BatchEntriesExpired = Schema.TaggedStruct("BatchEntriesExpired", {
  v: V1,
  batchId: Schema.String,
  entryIds: Schema.Array(Schema.String),
  at: Schema.Number
})
export type BatchEntriesExpired = typeof BatchEntriesExpired.Type

export const BatchEvent = Schema.Union([
  BatchCreated,
  BatchEntryQueued,
  BatchEntryFinished,
  BatchEntryRetried,
  BatchCanceled,
  BatchEntriesExpired
])
export type BatchEvent = typeof BatchEvent.Type

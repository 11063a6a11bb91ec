// Extension: commands of the batch aggregate and the pure decide function (what the feeder does next is BatchFeed).
import { Result, Schema } from "effect"
import { type Decider, type Decision, emit, none } from "../Decider.ts"
import type { DownloadOptions } from "../job/DownloadOptions.ts"
import type { DownloadFormat } from "../media/FormatId.ts"
import type { BatchEntry, BatchEntryOutcome, BatchEvent } from "./BatchEvent.ts"
import { type BatchState, evolveBatch, initialBatchState, isBatchDone, progressOf } from "./BatchState.ts"

export class BatchAlreadyExists extends Schema.TaggedError<BatchAlreadyExists>()("BatchAlreadyExists", {
  batchId: Schema.String
}) {}

export class BatchNotFound extends Schema.TaggedError<BatchNotFound>()("BatchNotFound", {
  batchId: Schema.String
}) {}

/** Cancel asked of a batch whose every entry already ended. */
export class BatchAlreadyFinished extends Schema.TaggedError<BatchAlreadyFinished>()("BatchAlreadyFinished", {
  batchId: Schema.String
}) {}

export class BatchWithoutEntries extends Schema.TaggedError<BatchWithoutEntries>()("BatchWithoutEntries", {
  batchId: Schema.String
}) {}

export type BatchCommand =
  | {
      readonly _tag: "CreateBatch"
      readonly batchId: string
      readonly projectId: string
      readonly mediaId: string
      readonly platform: string
      readonly format: DownloadFormat
      readonly options?: DownloadOptions
      readonly subscriptionId?: string
      readonly entries: ReadonlyArray<BatchEntry>
      readonly now: number
      readonly lifetimeMs: number
    }
  | { readonly _tag: "RecordEntryQueued"; readonly batchId: string; readonly entryId: string; readonly jobId: string; readonly now: number }
  | {
      readonly _tag: "RecordEntryFinished"
      readonly batchId: string
      readonly jobId: string
      readonly outcome: BatchEntryOutcome
      /** The job's try that ended (absent: its first). */
      readonly retry?: number
      readonly now: number
    }
  /** The entry's finished job was retried: queued again on try `retry`. */
  | { readonly _tag: "RecordEntryRetried"; readonly batchId: string; readonly jobId: string; readonly retry: number; readonly now: number }
  | { readonly _tag: "CancelBatch"; readonly batchId: string; readonly now: number }
  /** The batch's end passed: its entries never fed fail (expired); nothing before the end, nothing once canceled. */
  | { readonly _tag: "ExpireEntries"; readonly batchId: string; readonly now: number }

export type BatchRejection = BatchAlreadyExists | BatchNotFound | BatchAlreadyFinished | BatchWithoutEntries

export const decideBatch = (command: BatchCommand, state: BatchState): Decision<BatchEvent, BatchRejection> => {
  if (command._tag !== "CreateBatch" && state.status === "none") return Result.fail(new BatchNotFound({ batchId: command.batchId }))
  switch (command._tag) {
    case "CreateBatch":
      if (state.status !== "none") return Result.fail(new BatchAlreadyExists({ batchId: command.batchId }))
      if (command.entries.length === 0) return Result.fail(new BatchWithoutEntries({ batchId: command.batchId }))
      return emit({
        _tag: "BatchCreated",
        v: 1,
        batchId: command.batchId,
        projectId: command.projectId,
        mediaId: command.mediaId,
        platform: command.platform,
        format: command.format,
        ...(command.options === undefined || Object.keys(command.options).length === 0 ? {} : { options: command.options }),
        ...(command.subscriptionId === undefined ? {} : { subscriptionId: command.subscriptionId }),
        entries: command.entries,
        createdAt: command.now,
        expiresAt: command.now + command.lifetimeMs
      })
    case "RecordEntryQueued": {
      const known = state.entries.some((entry) => entry.entryId === command.entryId)
      // A job queued for an entry that already has one (a retried feed) changes nothing: one job per entry. An entry
      // that expired unfed while its job was being queued, or a batch canceled meanwhile, still records the job:
      // it exists, and the feeder lets it finish or cancels it.
      const progress = progressOf(state, command.entryId)._tag
      if (!known || (progress !== "Pending" && progress !== "Expired")) return none
      return emit({
        _tag: "BatchEntryQueued",
        v: 1,
        batchId: command.batchId,
        entryId: command.entryId,
        jobId: command.jobId,
        at: command.now
      })
    }
    case "RecordEntryFinished": {
      // The entry's job's try ended: recorded on an entry waiting for it, or over an earlier try's end.
      const retry = command.retry ?? 0
      const entry = state.entries.find((e) => {
        const progress = progressOf(state, e.entryId)
        if (progress._tag === "Queued") return progress.jobId === command.jobId
        return progress._tag === "Finished" && progress.jobId === command.jobId && (progress.retry ?? 0) < retry
      })
      if (entry === undefined) return none
      return emit({
        _tag: "BatchEntryFinished",
        v: 1,
        batchId: command.batchId,
        entryId: entry.entryId,
        jobId: command.jobId,
        outcome: command.outcome,
        ...(retry === 0 ? {} : { retry }),
        at: command.now
      })
    }
    case "RecordEntryRetried": {
      const entry = state.entries.find((e) => {
        const progress = progressOf(state, e.entryId)
        return progress._tag === "Finished" && progress.jobId === command.jobId && (progress.retry ?? 0) < command.retry
      })
      if (entry === undefined) return none
      return emit({
        _tag: "BatchEntryRetried",
        v: 1,
        batchId: command.batchId,
        entryId: entry.entryId,
        jobId: command.jobId,
        retry: command.retry,
        at: command.now
      })
    }
    case "CancelBatch":
      if (state.status === "canceled") return none
      if (isBatchDone(state)) return Result.fail(new BatchAlreadyFinished({ batchId: command.batchId }))
      return emit({ _tag: "BatchCanceled", v: 1, batchId: command.batchId, at: command.now })
    case "ExpireEntries": {
      if (state.status !== "running" || command.now < state.expiresAt) return none
      const unfed = state.entries.filter((entry) => progressOf(state, entry.entryId)._tag === "Pending").map((entry) => entry.entryId)
      if (unfed.length === 0) return none
      return emit({ _tag: "BatchEntriesExpired", v: 1, batchId: command.batchId, entryIds: unfed, at: command.now })
    }
  }
}

export const BatchDecider: Decider<BatchCommand, BatchEvent, BatchState, BatchRejection> = {
  initialState: initialBatchState,
  evolve: evolveBatch,
  decide: decideBatch
}

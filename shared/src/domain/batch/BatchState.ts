// Extension: the batch aggregate's state and evolve, folded from BatchEvents; what the decider and the feeder read.
import type { DownloadOptions } from "../job/DownloadOptions.ts"
import type { DownloadFormat } from "../media/FormatId.ts"
import type { BatchEntry, BatchEntryOutcome, BatchEvent } from "./BatchEvent.ts"

export type EntryProgress =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Queued"; readonly jobId: string; readonly retry?: number }
  /** `retry`: the job's try that ended (absent: its first). */
  | { readonly _tag: "Finished"; readonly jobId: string; readonly outcome: BatchEntryOutcome; readonly retry?: number }
  /** Never fed before the batch's end: failed with the code `expired`, without a job. */
  | { readonly _tag: "Expired" }

/** What a batch was made of besides its entries (BatchCreated): what its jobs are queued with, and what readers show. */
export interface BatchRecipe {
  readonly mediaId: string
  readonly platform: string
  readonly format: DownloadFormat
  readonly options?: DownloadOptions
  /** Extension: the subscription whose check made the batch. */
  readonly subscriptionId?: string
  readonly createdAt: number
}

export interface BatchState {
  readonly status: "none" | "running" | "canceled"
  readonly batchId: string | null
  readonly projectId: string | null
  readonly expiresAt: number
  readonly entries: ReadonlyArray<BatchEntry>
  readonly progress: Readonly<Record<string, EntryProgress>>
  /** null until BatchCreated. */
  readonly recipe: BatchRecipe | null
}

export const initialBatchState = (): BatchState => ({
  status: "none",
  batchId: null,
  projectId: null,
  expiresAt: 0,
  entries: [],
  progress: {},
  recipe: null
})

const PENDING: EntryProgress = { _tag: "Pending" }

export const progressOf = (state: BatchState, entryId: string): EntryProgress => state.progress[entryId] ?? PENDING

const EXPIRED: EntryProgress = { _tag: "Expired" }

/** Every entry has a finished job or expired unfed, or none can start any more (canceled) and none is running. */
export const isBatchDone = (state: BatchState): boolean =>
  state.status !== "none" &&
  state.entries.every((entry) => {
    const progress = progressOf(state, entry.entryId)._tag
    return progress === "Finished" || progress === "Expired" || (state.status === "canceled" && progress === "Pending")
  })

export const evolveBatch = (state: BatchState, event: BatchEvent): BatchState => {
  switch (event._tag) {
    case "BatchCreated":
      if (state.status !== "none") return state
      return {
        status: "running",
        batchId: event.batchId,
        projectId: event.projectId,
        expiresAt: event.expiresAt,
        entries: event.entries,
        progress: {},
        recipe: {
          mediaId: event.mediaId,
          platform: event.platform,
          format: event.format,
          ...(event.options === undefined ? {} : { options: event.options }),
          ...(event.subscriptionId === undefined ? {} : { subscriptionId: event.subscriptionId }),
          createdAt: event.createdAt
        }
      }
    case "BatchEntryQueued": {
      // An entry expired unfed whose job was queued after all (a feed that raced the end) is that job's.
      const progress = progressOf(state, event.entryId)._tag
      if (progress !== "Pending" && progress !== "Expired") return state
      return { ...state, progress: { ...state.progress, [event.entryId]: { _tag: "Queued", jobId: event.jobId } } }
    }
    case "BatchEntryFinished": {
      // A later try's end replaces an earlier one's; the same try's end is recorded once.
      const progress = progressOf(state, event.entryId)
      if (progress._tag === "Finished" && (progress.retry ?? 0) >= (event.retry ?? 0)) return state
      const finished: EntryProgress = {
        _tag: "Finished",
        jobId: event.jobId,
        outcome: event.outcome,
        ...(event.retry === undefined ? {} : { retry: event.retry })
      }
      return { ...state, progress: { ...state.progress, [event.entryId]: finished } }
    }
    case "BatchEntryRetried": {
      const progress = progressOf(state, event.entryId)
      if (progress._tag !== "Finished" || (progress.retry ?? 0) >= event.retry) return state
      return { ...state, progress: { ...state.progress, [event.entryId]: { _tag: "Queued", jobId: event.jobId, retry: event.retry } } }
    }
    case "BatchCanceled":
      return state.status === "running" ? { ...state, status: "canceled" } : state
    case "BatchEntriesExpired": {
      const progress = { ...state.progress }
      for (const entryId of event.entryIds) if (progressOf(state, entryId)._tag === "Pending") progress[entryId] = EXPIRED
      return { ...state, progress }
    }
  }
}

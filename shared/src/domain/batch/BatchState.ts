// Extension: the batch aggregate's state and evolve, folded from BatchEvents; what the decider and the feeder read.
import type { BatchEntry, BatchEntryOutcome, BatchEvent } from "./BatchEvent.ts"

export type EntryProgress =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Queued"; readonly jobId: string }
  | { readonly _tag: "Finished"; readonly jobId: string; readonly outcome: BatchEntryOutcome }
  /** Never fed before the batch's end: failed with the code `expired`, without a job. */
  | { readonly _tag: "Expired" }

export interface BatchState {
  readonly status: "none" | "running" | "canceled"
  readonly batchId: string | null
  readonly projectId: string | null
  readonly expiresAt: number
  readonly entries: ReadonlyArray<BatchEntry>
  readonly progress: Readonly<Record<string, EntryProgress>>
}

export const initialBatchState = (): BatchState => ({
  status: "none",
  batchId: null,
  projectId: null,
  expiresAt: 0,
  entries: [],
  progress: {}
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
        progress: {}
      }
    case "BatchEntryQueued": {
      // An entry expired unfed whose job was queued after all (a feed that raced the end) is that job's.
      const progress = progressOf(state, event.entryId)._tag
      if (progress !== "Pending" && progress !== "Expired") return state
      return { ...state, progress: { ...state.progress, [event.entryId]: { _tag: "Queued", jobId: event.jobId } } }
    }
    case "BatchEntryFinished":
      if (progressOf(state, event.entryId)._tag === "Finished") return state
      return {
        ...state,
        progress: { ...state.progress, [event.entryId]: { _tag: "Finished", jobId: event.jobId, outcome: event.outcome } }
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

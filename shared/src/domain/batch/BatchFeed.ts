// Extension: the batch feeder's pure reaction: from a batch, its entries' jobs and the project's slots, what to do next.
import type { React, Wake } from "../Reaction.ts"
import type { SlotReleaseReason } from "../admission/AdmissionEvent.ts"
import { isTerminal, type JobStatus } from "../job/JobState.ts"
import type { BatchEntryOutcome } from "./BatchEvent.ts"
import { type BatchState, progressOf } from "./BatchState.ts"

/** An entry's job as the feeder found it: its id (derived from the entry) and its status ("none": not queued). */
export interface EntryJob {
  readonly jobId: string
  readonly status: JobStatus
  /** Why its slot may be freed now, or null while it must stay held (`slotReleaseOf`: a canceled run still going). */
  readonly slotRelease: SlotReleaseReason | null
  /** The bytes its slot's release counts toward the month's quota (`slotReleaseBytes`); absent: none. */
  readonly slotBytes?: number
  /** Its current try (0: its first), whose slot a release frees; absent: its first. */
  readonly retry?: number
  /** It ended failed and the automatic retries will queue it again (JobRetries): its entry waits for that try. */
  readonly willRetry?: boolean
  /** The claim its current try was admitted with: a release counts its bytes only for that claim's slot. */
  readonly claim?: string
}

/**
 * Whether the batch's owner lets its entries start: open for a batch of its own (POST /batches); for a subscription's
 * batch, what the subscription says (SubscriptionBatches.ts): held (paused, not recorded yet) starts nothing new,
 * closed (removed) cancels the batch.
 */
export type FeedGate = "open" | "held" | "closed"

/** Everything the reaction decides from, read after the event that woke the feeder. */
export interface FeedState {
  readonly batch: BatchState
  /** The jobs of the entries the feeder looked up, by entry id; an entry not listed is not acted on. */
  readonly jobs: Readonly<Record<string, EntryJob>>
  /** Job ids holding one of the project's slots now (live slots only). */
  readonly held: ReadonlyArray<string>
  /** How many slots the project may hold. */
  readonly limit: number
  /** Absent: open. */
  readonly gate?: FeedGate
}

/**
 * What woke the feeder. The reaction is level-triggered: whichever event it was, it decides from the whole state read
 * after it, so a wake-up in any order (or a lost one, made up by the reconcile) leads to the same commands.
 */
export type FeedTrigger = Wake<"BatchRecorded" | "JobEnded" | "JobRetried" | "SlotReleased" | "Reconcile">

/**
 * The feeder's commands. Each is safe to repeat: its appends carry ids fixed by the batch, the entry and its job
 * (claim `SlotClaimed:<jobId>:<at>`, `JobQueued` of the derived job id, the work message `<jobId>`, `BatchEntryQueued:
 * <batchId>:<entryId>`, ...), and each decider turns a repeat into nothing.
 */
export type FeedCommand =
  /** Claim a slot for the entry's job, queue the job, hand it to a worker, record the entry queued. */
  | { readonly _tag: "StartEntry"; readonly entryId: string; readonly jobId: string }
  /** The entry's job exists but its record was lost (a feed that failed after queueing): record it now. */
  | { readonly _tag: "RecordEntryQueued"; readonly entryId: string; readonly jobId: string; readonly resendWork: boolean }
  | {
      readonly _tag: "RecordEntryFinished"
      readonly entryId: string
      readonly jobId: string
      readonly outcome: BatchEntryOutcome
      /** The job's try that ended (absent: its first). */
      readonly retry?: number
    }
  /** The entry's finished job was retried since: its entry waits for the new try. */
  | { readonly _tag: "RecordEntryRetried"; readonly entryId: string; readonly jobId: string; readonly retry: number }
  /** The batch is canceled and the entry's job still runs. */
  | { readonly _tag: "CancelEntryJob"; readonly entryId: string; readonly jobId: string }
  /** The entry's job ended but still holds a slot (a claim repeated after its end): free it. */
  | {
      readonly _tag: "ReleaseSlot"
      readonly jobId: string
      readonly reason: SlotReleaseReason
      readonly bytes?: number
      /** The try whose slot is freed (absent: the job's first). */
      readonly retry?: number
      /** The claim the try was admitted with. */
      readonly claim?: string
    }
  /** The batch's end passed: its entries never fed fail with the code `expired`. */
  | { readonly _tag: "ExpireEntries" }
  /** Its subscription was removed: the batch is canceled (its running jobs are canceled by the next rounds). */
  | { readonly _tag: "CancelBatch" }

const outcomeOf = (status: JobStatus): BatchEntryOutcome => (status === "completed" ? "completed" : "failed")

/**
 * The entries whose job the reaction needs: the queued ones, the first `limit` not yet queued (their job may exist
 * though the batch does not say so), the finished ones whose job still holds a slot, and the failed ones (their job
 * may have been retried since).
 */
export const entriesToLookUp = (batch: BatchState, held: ReadonlyArray<string>, limit: number): ReadonlyArray<string> => {
  const withProgress = batch.entries.map((entry) => ({ entryId: entry.entryId, progress: progressOf(batch, entry.entryId) }))
  const queued = withProgress.filter(({ progress }) => progress._tag === "Queued")
  const pending = withProgress.filter(({ progress }) => progress._tag === "Pending")
  const finished = withProgress.filter(
    ({ progress }) => progress._tag === "Finished" && (held.includes(progress.jobId) || progress.outcome === "failed")
  )
  return [...queued, ...pending.slice(0, Math.max(limit, 0)), ...finished].map((entry) => entry.entryId)
}

export const react: React<FeedState, FeedTrigger, FeedCommand> = (state, trigger) => {
  const { batch, jobs, held } = state
  if (batch.status === "none") return []
  const commands: Array<FeedCommand> = []
  const released = new Set<string>()
  // A canceled job whose run started keeps its slot until its worker stopped the run: that worker frees it.
  const releaseIfHeld = (job: EntryJob) => {
    if (job.slotRelease === null || !held.includes(job.jobId) || released.has(job.jobId)) return
    released.add(job.jobId)
    const bytes = job.slotBytes ?? 0
    const retry = job.retry ?? 0
    commands.push({
      _tag: "ReleaseSlot",
      jobId: job.jobId,
      reason: job.slotRelease,
      ...(bytes > 0 ? { bytes } : {}),
      ...(retry > 0 ? { retry } : {}),
      ...(job.claim === undefined ? {} : { claim: job.claim })
    })
  }

  for (const entry of batch.entries) {
    const { entryId } = entry
    const progress = progressOf(batch, entryId)
    const job = jobs[entryId]
    if (job === undefined || job.status === "none") continue
    const ended = isTerminal(job.status)
    const retry = job.retry ?? 0
    const finish = (): FeedCommand => ({
      _tag: "RecordEntryFinished",
      entryId,
      jobId: job.jobId,
      outcome: outcomeOf(job.status),
      ...(retry > 0 ? { retry } : {})
    })
    if (progress._tag === "Finished") {
      // The job was retried since its entry finished (by a client, or automatically): the entry follows its new try.
      if (retry > (progress.retry ?? 0)) {
        if (!ended) commands.push({ _tag: "RecordEntryRetried", entryId, jobId: job.jobId, retry })
        else if (job.willRetry !== true) commands.push(finish())
      }
      if (ended) releaseIfHeld(job)
      continue
    }
    if (progress._tag !== "Queued") {
      commands.push({ _tag: "RecordEntryQueued", entryId, jobId: job.jobId, resendWork: job.status === "queued" })
    }
    if (ended) {
      // A failure the automatic retries will retry is not the entry's end: it waits for the job's next try.
      if (job.willRetry !== true) commands.push(finish())
      releaseIfHeld(job)
    } else if (batch.status === "canceled") {
      commands.push({ _tag: "CancelEntryJob", entryId, jobId: job.jobId })
    }
  }

  if (batch.status !== "running") return commands
  if (state.gate === "closed") return [...commands, { _tag: "CancelBatch" }]
  if (trigger.now >= batch.expiresAt) {
    const unfed = batch.entries.some((entry) => {
      const status = jobs[entry.entryId]?.status ?? "none"
      return progressOf(batch, entry.entryId)._tag === "Pending" && status === "none"
    })
    return unfed ? [...commands, { _tag: "ExpireEntries" }] : commands
  }
  if (state.gate === "held") return commands
  let free = state.limit - held.filter((jobId) => !released.has(jobId)).length
  for (const entry of batch.entries) {
    if (free <= 0) break
    const job = jobs[entry.entryId]
    if (progressOf(batch, entry.entryId)._tag !== "Pending" || job?.status !== "none") continue
    commands.push({ _tag: "StartEntry", entryId: entry.entryId, jobId: job.jobId })
    free--
  }
  return commands
}

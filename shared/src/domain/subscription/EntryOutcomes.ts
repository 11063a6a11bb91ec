// Extension: what became of the entries a subscription queued (pure): read from each entry's batch and job, an entry is
// done (downloaded, or given up with a reason) or waits for the next check, which queues it again once.
import { progressOf, type BatchState } from "../batch/BatchState.ts"
import { isRetryableFailure } from "../job/JobFailures.ts"
import { jobStatus, type JobState } from "../job/JobState.ts"
import type { CheckError, EntryOutcome } from "./SubscriptionEvent.ts"
import type { TrackedEntry } from "./SubscriptionState.ts"

/** An entry gets this many runs: one that fails retryably is queued again by the next check once, then given up. */
export const ENTRY_TRIES = 2

/**
 * How long after its batch's end an entry that never started is taken for unfed: a feed that read the batch just before
 * the end may still be queueing its job (one feeder round: a few appends).
 */
export const UNFED_AFTER_END_MS = 60_000

/** An entry's batch and job as the subscription's round read them. */
export type EntrySighting =
  /** Its batch may still start it, or its job runs, or a retry of its job may still come: nothing to record yet. */
  | { readonly _tag: "InFlight" }
  | { readonly _tag: "Completed"; readonly jobId: string }
  /** Its job failed for good: `retryable` says whether the next check tries it again (ENTRY_TRIES). */
  | { readonly _tag: "Failed"; readonly jobId: string; readonly error: CheckError; readonly retryable: boolean }
  /** Its job was held back by the project's quota (the month's bytes ran out): it waits, and no try is counted. */
  | { readonly _tag: "Held"; readonly jobId: string; readonly error: CheckError }
  /** Its job or its batch was canceled (a client's DELETE): done. */
  | { readonly _tag: "Canceled"; readonly jobId: string | null }
  /** The batch ended before a slot took it (full slots, a quota, a paused subscription): it waits, no try counted. */
  | { readonly _tag: "Unfed" }
  /** Neither its batch nor its job is kept any more (everything was down past their retention): given up, unknown. */
  | { readonly _tag: "Unknown" }

const IN_FLIGHT: EntrySighting = { _tag: "InFlight" }

/**
 * Reads an entry's outcome from its batch and its job (`job`: its state, null when it has none). A job that failed
 * retryably is in flight until its lifetime ended, since an automatic or a client's retry may still run it: queuing it
 * again before then could download it twice.
 */
export const sightingOf = (batch: BatchState, entryId: string, job: JobState, now: number): EntrySighting => {
  if (job !== null) {
    const jobId = job.id
    switch (jobStatus(job)) {
      case "completed":
        return { _tag: "Completed", jobId }
      case "canceled":
        return { _tag: "Canceled", jobId }
      case "expired":
        return {
          _tag: "Failed",
          jobId,
          error: { code: "job_expired", message: "The entry's job waited past its lifetime." },
          retryable: true
        }
      case "failed": {
        const code = job.error?.code ?? "internal_error"
        const error: CheckError = { code, message: job.error?.message ?? "The entry's job failed." }
        if (code === "quota_exceeded") return { _tag: "Held", jobId, error }
        const retryable = isRetryableFailure(code)
        if (retryable && now < job.expiresAt) return IN_FLIGHT
        return { _tag: "Failed", jobId, error, retryable }
      }
      default:
        return IN_FLIGHT
    }
  }
  if (batch.status === "none") return { _tag: "Unknown" }
  const progress = progressOf(batch, entryId)._tag
  if (progress === "Queued" || progress === "Finished") return IN_FLIGHT
  if (batch.status === "canceled") return { _tag: "Canceled", jobId: null }
  return now >= batch.expiresAt + UNFED_AFTER_END_MS ? { _tag: "Unfed" } : IN_FLIGHT
}

const UNFED: CheckError = { code: "not_started", message: "Its batch ended before a slot of the project took it." }
const UNKNOWN: CheckError = {
  code: "outcome_unknown",
  message: "Its batch and job were no longer kept when the subscription looked: whether it was downloaded is not known."
}

/** The outcomes of the in-flight entries whose sightings say they ended; in-flight ones are left out. */
export const settle = (entries: ReadonlyArray<TrackedEntry>, sightings: ReadonlyMap<string, EntrySighting>): ReadonlyArray<EntryOutcome> =>
  entries.flatMap((entry): ReadonlyArray<EntryOutcome> => {
    const sighting = sightings.get(entry.archiveKey)
    if (entry.batchId === null || sighting === undefined) return []
    const outcome = (
      result: EntryOutcome["result"],
      failed: boolean,
      reason: CheckError | null,
      jobId: string | null
    ): ReadonlyArray<EntryOutcome> => [{ archiveKey: entry.archiveKey, batchId: entry.batchId, result, failed, reason, jobId }]
    switch (sighting._tag) {
      case "InFlight":
        return []
      case "Completed":
        return outcome("downloaded", false, null, sighting.jobId)
      case "Failed":
        return outcome(
          sighting.retryable && entry.failures + 1 < ENTRY_TRIES ? "waiting" : "given_up",
          true,
          sighting.error,
          sighting.jobId
        )
      case "Held":
        return outcome("waiting", false, sighting.error, sighting.jobId)
      case "Canceled":
        return outcome("given_up", false, { code: "canceled", message: "Its job or batch was canceled." }, sighting.jobId)
      case "Unfed":
        return outcome("waiting", false, UNFED, null)
      case "Unknown":
        return outcome("given_up", false, UNKNOWN, null)
    }
  })

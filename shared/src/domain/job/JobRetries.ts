// The automatic retries' pure reaction: from a job's one state, whether to queue it again now, later, or not at all,
// and whether a queued try that never ran must be handed to the workers again.
import type { React, Wake } from "../Reaction.ts"
import type { JobEvent } from "./JobEvent.ts"
import { isRetryableFailure } from "./JobFailures.ts"
import { clientRetriesOf, type JobState, jobStatus, retriesOf, runsOfCurrentTry } from "./JobState.ts"

export interface AutoRetrySettings {
  /** Retries of one job at most (JOB_AUTO_RETRIES); 0 turns them off. */
  readonly maxRetries: number
  /** The wait after a failure before its first retry (JOB_RETRY_BACKOFF_SECONDS); each later one waits 3 times longer. */
  readonly backoffMs: number
}

/** What woke the reaction, and when: it decides from the state read after it, whichever it was. */
export type RetryTrigger = Wake<"JobEnded" | "Reconcile">

/**
 * The reaction's commands. Each is safe to repeat: the slot claim is a no-op for a job that holds one, RetryJob names
 * its retry (a repeat appends nothing), and the work message's id is `<jobId>:retry:<n>`.
 */
export type RetryReaction =
  /** Claim a slot for the job, record JobRetried number `retry` (by automatic), hand the job to a worker. */
  | { readonly _tag: "Retry"; readonly retry: number }
  /**
   * The job's current try (its first, or a retry by anyone) is queued and has not run: its work message may be lost
   * (the process that recorded it died before sending it), so send it unless the work stream still holds it.
   */
  | { readonly _tag: "HandOff"; readonly retry: number }
  /** A retry is due at `at`: look again then. */
  | { readonly _tag: "WaitUntil"; readonly at: number }

/**
 * Whether a job whose last event is `last` may still owe the retries something (a retry to decide, or a queued try to
 * hand off): what the reconcile looks at, so that a lost wake-up or a lost hand-off leaves nothing undone.
 */
export const mayAwaitRetry = (last: JobEvent): boolean =>
  last._tag === "JobFailed" || last._tag === "JobRetried" || last._tag === "JobQueued" || last._tag === "JobLiveBegan"

const BACKOFF_FACTOR = 3

/** The wait before retry number `retry` (1, 2, ...): 10 s, 30 s, 90 s ... with the default setting. */
export const backoffBefore = (settings: AutoRetrySettings, retry: number): number =>
  settings.backoffMs * BACKOFF_FACTOR ** Math.max(0, retry - 1)

/**
 * Only a failed job (not canceled, within its lifetime) whose failure is retryable by the table, while it has had fewer
 * than `maxRetries` retries; a client's retry counts among them. A queued try that has not run (a new job, or a retry
 * by anyone) is handed off again: the step after its record may have been cut off.
 */
export const retryReaction =
  (settings: AutoRetrySettings): React<JobState, RetryTrigger, RetryReaction> =>
  (state, trigger) => {
    if (state === null || trigger.now >= state.expiresAt) return []
    const status = jobStatus(state)
    if (status === "queued" && runsOfCurrentTry(state) === 0) return [{ _tag: "HandOff", retry: retriesOf(state) }]
    if (status !== "failed" || state.error === null || !isRetryableFailure(state.error.code)) return []
    // The budget counts retries as clients do (a wait for a stream's start is no retry); the retry's number is its try's.
    const retries = clientRetriesOf(state)
    if (retries >= settings.maxRetries) return []
    const due = (state.completedAt ?? trigger.now) + backoffBefore(settings, retries + 1)
    // A retry due after the job's lifetime would find it not found: the job stays failed.
    if (due >= state.expiresAt) return []
    return trigger.now >= due ? [{ _tag: "Retry", retry: retriesOf(state) + 1 }] : [{ _tag: "WaitUntil", at: due }]
  }

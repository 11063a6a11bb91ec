// The job aggregate's one state and its one evolve: the job's document (null before JobQueued), folded from JobEvents.
// The decider, the read-model projection and every reader or reactor that needs a job's state use this fold.
import { CANCELED_ERROR, type JobEvent } from "./JobEvent.ts"
import type { JobView } from "./JobView.ts"

/** The job's document as of its last folded event; null while nothing was queued. */
export type JobState = JobView | null

/** What a decision or a reactor asks of a job: the document's status, with "none" and "canceled" told apart. */
export type JobStatus = "none" | "queued" | "processing" | "completed" | "failed" | "expired" | "canceled"

export const initialJobState = (): JobState => null

/** A failed job whose error is the cancel's is canceled (the API answers it as failed with the code `canceled`). */
export const jobStatus = (state: JobState): JobStatus => {
  if (state === null) return "none"
  if (state.status === "failed" && state.error?.code === CANCELED_ERROR.code) return "canceled"
  return state.status
}

export const isTerminal = (status: JobStatus): boolean =>
  status === "completed" || status === "failed" || status === "expired" || status === "canceled"

/** The job reached an end: nothing runs for it any more, and only a JobRetried (of a failed job) reopens it. */
export const hasEnded = (state: JobState): boolean => isTerminal(jobStatus(state))

/** A job that is waiting: what `endsJob` folds an event into. */
const LIVE_JOB: JobView = {
  id: "",
  projectId: "",
  status: "queued",
  progress: 0,
  platform: "",
  requestedFormat: "",
  source: { url: "", mediaId: null },
  attempt: 0,
  createdAt: 0,
  expiresAt: Number.MAX_SAFE_INTEGER,
  startedAt: null,
  completedAt: null,
  artifact: null,
  error: null,
  lastSeq: 0
}

/**
 * The event queues, starts or ends a job: what a view that counts jobs by status (usage) listens for. Progress and
 * events a job's state absorbs change no status.
 */
export const changesJobStatus = (event: JobEvent): boolean =>
  evolveJob(null, event) !== null || jobStatus(evolveJob(LIVE_JOB, event)) !== "queued"

/** The event ends whatever live job it is folded into: what a reactor that waits for jobs' ends listens for. */
export const endsJob = (event: JobEvent): boolean => hasEnded(evolveJob(LIVE_JOB, event))

/** Retries the job had so far. */
export const retriesOf = (state: JobState): number => state?.retry?.number ?? 0

/**
 * Terminal states absorb every later event, so a late or duplicated event never reopens a job; the one exception is
 * JobRetried, which queues a failed job again (the decider only emits it for a retryable failure, JobFailures.ts) and
 * is itself absorbed when repeated (a number not above the job's retries) or when the job is not failed. Events of a job whose
 * JobQueued was never seen (trimmed by retention) have nothing to attach to. `lastSeq` is left as it was: the
 * projection (`evolveJobView`) sets it from the event's stream sequence.
 */
export const evolveJob = (state: JobState, event: JobEvent): JobState => {
  if (event._tag === "JobQueued") {
    if (state !== null) return state
    return {
      id: event.jobId,
      projectId: event.projectId,
      status: "queued",
      progress: 0,
      platform: event.platform,
      requestedFormat: event.format,
      source: event.source,
      attempt: 0,
      createdAt: event.createdAt,
      expiresAt: event.expiresAt,
      startedAt: null,
      completedAt: null,
      artifact: null,
      error: null,
      lastSeq: 0,
      ...(event.options === undefined ? {} : { options: event.options }),
      ...(event.batch === undefined ? {} : { batch: event.batch })
    }
  }
  if (event._tag === "JobRetried") {
    if (jobStatus(state) !== "failed" || state === null || event.retry <= retriesOf(state)) return state
    return {
      ...state,
      status: "queued",
      progress: 0,
      completedAt: null,
      error: null,
      retry: { number: event.retry, afterAttempt: event.attempt, by: event.by, at: event.at }
    }
  }
  if (state === null || hasEnded(state)) return state
  switch (event._tag) {
    case "JobStarted":
      return {
        ...state,
        status: "processing",
        attempt: Math.max(state.attempt, event.attempt),
        startedAt: state.startedAt ?? event.at
      }
    case "JobProgressed":
      return { ...state, progress: Math.max(state.progress, event.percent) }
    case "JobCompleted":
      return {
        ...state,
        status: "completed",
        progress: 100,
        completedAt: event.at,
        artifact: event.artifact,
        ...(event.platform === undefined ? {} : { platform: event.platform })
      }
    case "JobFailed":
      return { ...state, status: "failed", completedAt: event.at, error: event.error }
    case "JobExpired":
      return { ...state, status: "expired", completedAt: event.at }
    case "JobCanceled":
      return { ...state, status: "failed", completedAt: event.at, error: CANCELED_ERROR }
  }
}

// The job aggregate's one state and its one evolve: the job's document (null before JobQueued), folded from JobEvents.
// The decider, the read-model projection and every reader or reactor that needs a job's state use this fold.
import { CANCELED_ERROR, type JobEvent, type JobQueued } from "./JobEvent.ts"
import type { JobScheduled } from "./JobScheduleEvent.ts"
import { evolveRecording, type PartialReason } from "./JobRecording.ts"
import type { JobView } from "./JobView.ts"

/** The job's document as of its last folded event; null while nothing was queued. */
export type JobState = JobView | null

/** What a decision or a reactor asks of a job: the document's status, with "none" and "canceled" told apart. */
export type JobStatus = "none" | "scheduled" | "queued" | "processing" | "completed" | "failed" | "expired" | "canceled"

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
  format: { kind: "unlisted", id: "" },
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

/** A job that waits for its stream: what `changesJobStatus` also folds an event into. */
const SCHEDULED_JOB: JobView = {
  ...LIVE_JOB,
  status: "scheduled",
  schedule: { startsAt: 0, waitUntil: Number.MAX_SAFE_INTEGER, nextProbeAt: 0, failedProbes: 0 }
}

/**
 * The event queues, starts or ends a job: what a view that counts jobs by status (usage) listens for. Progress and
 * events a job's state absorbs change no status.
 */
export const changesJobStatus = (event: JobEvent): boolean =>
  evolveJob(null, event) !== null ||
  jobStatus(evolveJob(LIVE_JOB, event)) !== "queued" ||
  jobStatus(evolveJob(SCHEDULED_JOB, event)) !== "scheduled"

/** The event ends whatever live job it is folded into: what a reactor that waits for jobs' ends listens for. */
export const endsJob = (event: JobEvent): boolean => hasEnded(evolveJob(LIVE_JOB, event))

/** The events after which a job has a delivery to make (now, or at its retry time): what wakes the delivery reactor. */
export const leavesDeliveryToDo = (event: JobEvent): boolean => event._tag === "JobStored" || event._tag === "JobDeliveryTried"

/** The event queues an ended job again (a retry): what a reactor that follows its jobs' ends also listens for. */
export const reopensJob = (event: JobEvent): boolean => event._tag === "JobRetried"

/**
 * The number of the job's current try (0: its first): each retry, and the wait of a queued download whose stream had
 * not begun (JobAwaitingStart), starts a try of its own, with a slot and a work message of its own.
 */
export const retriesOf = (state: JobState): number => state?.retry?.number ?? 0

/**
 * The job's retries as clients count them (the API's `retries`, JOB_AUTO_RETRIES): its tries after the first, less the
 * one its stream's start began (a wait is no retry).
 */
export const clientRetriesOf = (state: JobState): number =>
  Math.max(0, retriesOf(state) - (state?.schedule?.afterAttempt === undefined ? 0 : 1))

/** The job stored its file and waits for it to be delivered: no run is going, the delivery is what comes next. */
export const isAwaitingDelivery = (state: JobState): boolean => jobStatus(state) === "processing" && state?.delivery?.status === "pending"

/** Runs the current try has started (a retry's runs count afresh). */
export const runsOfCurrentTry = (state: JobState): number => (state === null ? 0 : state.attempt - (state.retry?.afterAttempt ?? 0))

/** Why a stored file holds less than asked, and a recording completed from its kept parts ended with its lost worker. */
const partialOf = (state: JobView, partial: PartialReason | undefined): Partial<JobView> =>
  partial === undefined
    ? {}
    : {
        partial,
        ...(partial === "worker_lost" && state.recording !== undefined && state.recording.ended === null
          ? { recording: { ...state.recording, ended: "worker_lost" as const } }
          : {})
      }

/** A job's document as its first event makes it: queued now, or scheduled for a stream that has not begun. */
const newJob = (event: JobQueued | JobScheduled, status: "queued" | "scheduled"): JobView => ({
  id: event.jobId,
  projectId: event.projectId,
  status,
  progress: 0,
  platform: event.platform,
  format: event.format,
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
})

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
    return { ...newJob(event, "queued"), ...(event.claim === undefined ? {} : { claim: event.claim }) }
  }
  if (event._tag === "JobRetried") {
    if (jobStatus(state) !== "failed" || state === null || event.retry <= retriesOf(state)) return state
    const { claim: _claim, work: _work, recording: _recording, delivery: _delivery, partial: _partial, ...rest } = state
    return {
      ...rest,
      status: "queued",
      progress: 0,
      completedAt: null,
      error: null,
      retry: { number: event.retry, afterAttempt: event.attempt, by: event.by, at: event.at },
      ...(event.claim === undefined ? {} : { claim: event.claim })
    }
  }
  if (event._tag === "JobScheduled") {
    if (state !== null) return state
    return {
      ...newJob(event, "scheduled"),
      schedule: { startsAt: event.startsAt, waitUntil: event.waitUntil, nextProbeAt: event.nextProbeAt, failedProbes: 0 }
    }
  }
  // Retention removes a delivered job's files after the job completed: the one event an ended job still takes.
  if (event._tag === "JobDeliveryRemoved") {
    if (state === null || state.delivery?.status !== "delivered") return state
    return { ...state, delivery: { ...state.delivery, status: "removed", removedAt: event.at } }
  }
  if (state === null || hasEnded(state)) return state
  switch (event._tag) {
    case "JobLiveProbed": {
      // Only a job still waiting for its stream takes a probe in; a late one (the job began, or was canceled) is news to nobody.
      if (state.status !== "scheduled" || state.schedule === undefined || state.schedule.liveAt !== undefined) return state
      return {
        ...state,
        schedule: {
          ...state.schedule,
          startsAt: event.startsAt ?? state.schedule.startsAt,
          nextProbeAt: event.nextProbeAt,
          failedProbes: event.failedProbes,
          ...(event.outcome === "live" ? { liveAt: event.at } : {})
        }
      }
    }
    case "JobAwaitingStart": {
      // Only the run it names, still running, ends so: a late one (a later attempt took over) changes nothing.
      if (state.status !== "processing" || state.attempt !== event.attempt) return state
      const { claim: _claim, work: _work, recording: _recording, ...rest } = state
      return {
        ...rest,
        status: "scheduled",
        progress: 0,
        expiresAt: event.expiresAt,
        retry: { number: event.retry, afterAttempt: event.attempt, by: "stream_start", at: event.at },
        schedule: {
          startsAt: event.startsAt,
          waitUntil: event.waitUntil,
          nextProbeAt: event.nextProbeAt,
          failedProbes: 0,
          afterAttempt: event.attempt
        }
      }
    }
    case "JobLiveBegan":
      if (state.status !== "scheduled") return state
      return { ...state, status: "queued", expiresAt: event.expiresAt, ...(event.claim === undefined ? {} : { claim: event.claim }) }
    case "JobStarted":
      // A scheduled job has no work message: a start can only belong to a try after it began.
      if (state.status === "scheduled") return state
      return {
        ...state,
        status: "processing",
        attempt: Math.max(state.attempt, event.attempt),
        startedAt: state.startedAt ?? event.at,
        ...(event.work === undefined ? {} : { work: event.work })
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
        ...(event.platform === undefined ? {} : { platform: event.platform }),
        ...partialOf(state, event.partial)
      }
    case "JobFailed":
      return { ...state, status: "failed", completedAt: event.at, error: event.error }
    case "JobExpired":
      return { ...state, status: "expired", completedAt: event.at }
    case "JobCanceled":
      return { ...state, status: "failed", completedAt: event.at, error: CANCELED_ERROR }
    case "JobRecordingStarted":
    case "JobRecordingProgressed":
    case "JobStopRequested":
    case "JobRecordingKept":
      return evolveRecording(state, event)
    case "JobStored":
      if (state.delivery !== undefined) return state
      return {
        ...state,
        progress: 100,
        artifact: event.artifact,
        ...(event.platform === undefined ? {} : { platform: event.platform }),
        ...partialOf(state, event.partial),
        delivery: { ...event.delivery, status: "pending", attempts: 0, retryAt: null, error: null, deliveredAt: null }
      }
    case "JobDeliveryTried":
      if (state.delivery?.status !== "pending" || event.attempt <= state.delivery.attempts) return state
      return { ...state, delivery: { ...state.delivery, attempts: event.attempt, retryAt: event.retryAt, error: event.error } }
    case "JobDelivered":
      if (state.delivery?.status !== "pending") return state
      return { ...state, delivery: { ...state.delivery, status: "delivered", retryAt: null, deliveredAt: event.at } }
    case "JobDeliveryFailed":
      if (state.delivery?.status !== "pending") return state
      return { ...state, delivery: { ...state.delivery, status: "failed", attempts: event.attempt, retryAt: null, error: event.error } }
  }
}

/**
 * Folds one event into the document: the job's one evolve (`evolveJob`), stamped with the event's stream sequence. An
 * event at or below the document's lastSeq was already applied and changes nothing, so redelivery is harmless.
 */
export const evolveJobView = (doc: JobView | null, event: JobEvent, seq: number): JobView | null => {
  if (doc !== null && seq <= doc.lastSeq) return doc
  const next = evolveJob(doc, event)
  return next === null ? null : { ...next, lastSeq: seq }
}

// Commands of the job aggregate and the pure decide function that turns them into JobEvents.
import { Result } from "effect"
import { type Decider, type Decision, emit, none } from "../Decider.ts"
import {
  InvalidJobTransition,
  JobAlreadyExists,
  JobAlreadyFinished,
  JobNotFound,
  type JobNotLive,
  JobNotRetryable,
  RunNotCurrent
} from "../DomainErrors.ts"
import { type DownloadOptions, hasOptions } from "./DownloadOptions.ts"
import type { DownloadFormat } from "../media/FormatId.ts"
import { type DeliveredSidecar, type DeliveryError, deliveryRetryDelay, isRetryableDelivery, removablePaths } from "./JobDelivery.ts"
import type { JobArtifact, JobError, JobEvent, JobRetriedBy, JobSource } from "./JobEvent.ts"
import { isRetryableFailure } from "./JobFailures.ts"
import { decideRecording, type RecordingCommand } from "./RecordingDecider.ts"
import { hasKeptParts, isRecording, type PartialReason, RECORDING_INTERRUPTED_MESSAGE } from "./JobRecording.ts"
import { decideSchedule, type JobScheduleCommand } from "./JobScheduleDecider.ts"
import {
  evolveJob,
  initialJobState,
  isAwaitingDelivery,
  isTerminal,
  type JobState,
  type JobStatus,
  jobStatus,
  retriesOf
} from "./JobState.ts"

export type JobCommand =
  | {
      readonly _tag: "QueueJob"
      readonly jobId: string
      readonly projectId: string
      readonly platform: string
      readonly format: DownloadFormat
      readonly source: JobSource
      readonly now: number
      readonly lifetimeMs: number
      readonly options?: DownloadOptions
      readonly batch?: { readonly batchId: string; readonly entryId: string }
      /** The admission claim the job was admitted with. */
      readonly claim?: string
    }
  | {
      readonly _tag: "StartJob"
      readonly jobId: string
      readonly workerId: string
      readonly now: number
      /** The try the work message is for (0: the job's first); a message of another try starts nothing. */
      readonly retry?: number
      /** The work message's stream sequence: while one message runs the try, another starts nothing. */
      readonly work?: number
    }
  | {
      readonly _tag: "ReportProgress"
      readonly jobId: string
      readonly percent: number
      readonly now: number
      /** The reporting run's attempt: a run a later attempt took over reports nothing. */
      readonly attempt?: number
    }
  | {
      readonly _tag: "CompleteJob"
      readonly jobId: string
      readonly artifact: JobArtifact
      readonly now: number
      /** The platform of the extractor that handled the download, given when it differs from the queued one. */
      readonly platform?: string
      /** The completing run's attempt: a run a later attempt took over completes nothing. */
      readonly attempt?: number
      /** Extension: the file holds less than asked (a lost recording's kept parts joined). */
      readonly partial?: PartialReason
      /**
       * Extension, for a job with a delivery order: where the file and its sidecars go in the destination (the run
       * rendered the template with the media's fields). The job then records JobStored and waits for the delivery.
       */
      readonly delivery?: { readonly path: string; readonly sidecars: ReadonlyArray<DeliveredSidecar> }
    }
  | {
      readonly _tag: "RecordDelivery"
      readonly jobId: string
      /** The attempt this outcome is of: the job's failed attempts so far + 1; another number is a repeat and changes nothing. */
      readonly attempt: number
      readonly outcome: { readonly _tag: "Delivered" } | { readonly _tag: "Failed"; readonly error: DeliveryError }
      /** One delay per retry (DELIVERY_RETRY_DELAYS): a retryable failure past them fails the job. */
      readonly retryDelaysMs: ReadonlyArray<number>
      readonly now: number
    }
  | {
      /** Extension: retention removed the delivered files (RemoveDeliveredJob has deleted them). */
      readonly _tag: "RecordDeliveryRemoved"
      readonly jobId: string
      readonly subscriptionId: string
      readonly now: number
    }
  | {
      readonly _tag: "FailJob"
      readonly jobId: string
      readonly error: JobError
      readonly now: number
      /** The failing run's attempt, when a run fails it: a run a later attempt took over fails nothing. */
      readonly attempt?: number
    }
  | { readonly _tag: "ExpireJob"; readonly jobId: string; readonly now: number }
  | { readonly _tag: "CancelJob"; readonly jobId: string; readonly now: number }
  | {
      readonly _tag: "RetryJob"
      readonly jobId: string
      readonly by: JobRetriedBy
      readonly now: number
      /**
       * The retry this command makes (the automatic retries name it, so that carrying it out again does nothing once
       * the job has had it); without it, the job's next.
       */
      readonly retry?: number
      /** The admission claim the retry was admitted with. */
      readonly claim?: string
    }
  | RecordingCommand
  | JobScheduleCommand

export type JobRejection =
  | JobAlreadyExists
  | InvalidJobTransition
  | JobNotFound
  | JobAlreadyFinished
  | JobNotRetryable
  | RunNotCurrent
  | JobNotLive

const reject = (status: JobStatus, command: JobCommand): Decision<JobEvent, JobRejection> =>
  Result.fail(new InvalidJobTransition({ jobId: command.jobId, status, command: command._tag }))

const isOverdue = (state: JobState, now: number) => state !== null && now >= state.expiresAt

/** A run's end or progress from an attempt a later one took over (its message was redelivered meanwhile). */
const isSuperseded = (state: JobState, attempt: number | undefined) => state !== null && attempt !== undefined && attempt !== state.attempt
const notCurrent = (jobId: string, reason: RunNotCurrent["reason"]): Decision<JobEvent, JobRejection> =>
  Result.fail(new RunNotCurrent({ jobId, reason }))

type CompleteJob = Extract<JobCommand, { readonly _tag: "CompleteJob" }>
type RecordDelivery = Extract<JobCommand, { readonly _tag: "RecordDelivery" }>

/** A job with a destination records its stored file and where it goes; a second completion of it changes nothing. */
const storeForDelivery = (command: CompleteJob, state: JobState): Decision<JobEvent, JobRejection> => {
  const order = state?.options?.delivery
  if (state?.delivery !== undefined) return none
  if (order === undefined || command.delivery === undefined) return reject(jobStatus(state), command)
  return emit({
    _tag: "JobStored",
    v: 1,
    jobId: command.jobId,
    artifact: command.artifact,
    ...(command.platform === undefined ? {} : { platform: command.platform }),
    delivery: { destinationId: order.destinationId, path: command.delivery.path, sidecars: [...command.delivery.sidecars] },
    ...(command.partial === undefined ? {} : { partial: command.partial }),
    at: command.now
  })
}

/**
 * One delivery attempt's outcome: delivered completes the job (JobDelivered, JobCompleted); a failure worth another try
 * waits for its delay (JobDeliveryTried); a refusal or the last attempt fails the job with the destination's code
 * (JobDeliveryFailed, JobFailed). Only the job's next attempt counts: a repeated outcome, or one for a job that ended
 * meanwhile (canceled, expired), changes nothing.
 */
const recordDelivery = (command: RecordDelivery, state: JobState): Decision<JobEvent, JobRejection> => {
  if (state === null) return Result.fail(new JobNotFound({ jobId: command.jobId }))
  const delivery = state.delivery
  if (delivery === undefined || state.artifact === null) return reject(jobStatus(state), command)
  if (!isAwaitingDelivery(state) || command.attempt !== delivery.attempts + 1) return none
  const base = { v: 1, jobId: command.jobId, at: command.now } as const
  if (command.outcome._tag === "Delivered") {
    return emit(
      { ...base, _tag: "JobDelivered", destinationId: delivery.destinationId, path: delivery.path },
      { ...base, _tag: "JobCompleted", artifact: state.artifact }
    )
  }
  const error = command.outcome.error
  const delay = isRetryableDelivery(error.code) ? deliveryRetryDelay(command.retryDelaysMs, command.attempt) : null
  if (delay !== null) {
    return emit({ ...base, _tag: "JobDeliveryTried", attempt: command.attempt, error, retryAt: command.now + delay })
  }
  return emit(
    { ...base, _tag: "JobDeliveryFailed", attempt: command.attempt, error },
    {
      ...base,
      _tag: "JobFailed",
      error: {
        code: error.code,
        message: `The file was stored but could not be delivered: ${error.message}`,
        retryable: isRetryableFailure(error.code)
      }
    }
  )
}

export const decideJob = (command: JobCommand, state: JobState): Decision<JobEvent, JobRejection> => {
  const status = jobStatus(state)
  switch (command._tag) {
    case "QueueJob":
      if (status !== "none") return Result.fail(new JobAlreadyExists({ jobId: command.jobId }))
      return emit({
        _tag: "JobQueued",
        v: 1,
        jobId: command.jobId,
        projectId: command.projectId,
        platform: command.platform,
        format: command.format,
        source: command.source,
        createdAt: command.now,
        expiresAt: command.now + command.lifetimeMs,
        ...(hasOptions(command.options) ? { options: command.options } : {}),
        ...(command.batch === undefined ? {} : { batch: command.batch }),
        ...(command.claim === undefined ? {} : { claim: command.claim })
      })
    case "StartJob":
      // A message of an earlier try (its slot is its own to free, and it ended failed) starts nothing, whatever became
      // of the job since; neither does a second message of this try while another runs it (a hand-off sent again
      // after the stream's duplicate window).
      if (state !== null && command.retry !== undefined && command.retry !== retriesOf(state)) return notCurrent(command.jobId, "other_try")
      // A scheduled job has no work message until its stream began (JobLiveBegan).
      if (state === null || isTerminal(status) || status === "scheduled") return reject(status, command)
      if (status === "processing" && command.work !== undefined && state.work !== undefined && command.work !== state.work) {
        return notCurrent(command.jobId, "running")
      }
      if (isOverdue(state, command.now)) return emit({ _tag: "JobExpired", v: 1, jobId: command.jobId, at: command.now })
      // Its file is stored: a work message handed out again (its run's worker died after storing) has nothing to run;
      // the delivery goes on, and the job's slot stays held until it ends.
      if (isAwaitingDelivery(state)) return notCurrent(command.jobId, "stored")
      // The run that recorded a live stream died mid-recording before it kept any part: its recording is lost with it,
      // and a new run would only record from now, so the job fails (retryable: a retry records the stream again). With
      // parts kept, the job starts again and that run joins them and completes the job partial (keptOfLostRecording).
      if (isRecording(state) && !hasKeptParts(state)) {
        return emit({
          _tag: "JobFailed",
          v: 1,
          jobId: command.jobId,
          error: { code: "recording_interrupted", message: RECORDING_INTERRUPTED_MESSAGE, retryable: true },
          at: command.now
        })
      }
      // A redelivered job starts again with the next attempt number.
      return emit({
        _tag: "JobStarted",
        v: 1,
        jobId: command.jobId,
        attempt: state.attempt + 1,
        workerId: command.workerId,
        ...(command.work === undefined ? {} : { work: command.work }),
        at: command.now
      })
    case "ReportProgress": {
      if (state === null || status !== "processing" || isSuperseded(state, command.attempt)) return none
      const percent = Math.min(100, Math.max(0, Math.floor(command.percent)))
      // Progress only moves forward; a repeated or smaller value is not news.
      if (percent <= state.progress) return none
      return emit({ _tag: "JobProgressed", v: 1, jobId: command.jobId, percent, at: command.now })
    }
    case "CompleteJob":
      if (isSuperseded(state, command.attempt)) return notCurrent(command.jobId, "superseded")
      if (status === "completed") return none
      if (status !== "processing") return reject(status, command)
      // Past its lifetime nobody can read the job any more: it expires instead (its run discards the file).
      if (isOverdue(state, command.now)) return emit({ _tag: "JobExpired", v: 1, jobId: command.jobId, at: command.now })
      if (state?.options?.delivery !== undefined) return storeForDelivery(command, state)
      return emit({
        _tag: "JobCompleted",
        v: 1,
        jobId: command.jobId,
        artifact: command.artifact,
        ...(command.platform === undefined ? {} : { platform: command.platform }),
        ...(command.partial === undefined ? {} : { partial: command.partial }),
        at: command.now
      })
    case "RecordDelivery":
      return recordDelivery(command, state)
    case "RecordDeliveryRemoved": {
      // Recorded once: a removal carried out again (after a crash before its record, or twice) records nothing more.
      if (state === null) return Result.fail(new JobNotFound({ jobId: command.jobId }))
      const delivery = state.delivery
      if (delivery?.status === "removed") return none
      if (delivery?.status !== "delivered") return reject(status, command)
      return emit({
        _tag: "JobDeliveryRemoved",
        v: 1,
        jobId: command.jobId,
        destinationId: delivery.destinationId,
        subscriptionId: command.subscriptionId,
        paths: [...removablePaths(delivery)],
        at: command.now
      })
    }
    case "FailJob":
      if (isSuperseded(state, command.attempt)) return notCurrent(command.jobId, "superseded")
      if (isTerminal(status)) return none
      if (status === "none") return reject(status, command)
      return emit({ _tag: "JobFailed", v: 1, jobId: command.jobId, error: command.error, at: command.now })
    case "ExpireJob":
      if (status === "none" || isTerminal(status) || !isOverdue(state, command.now)) return none
      return emit({ _tag: "JobExpired", v: 1, jobId: command.jobId, at: command.now })
    case "CancelJob":
      // A job past its lifetime is not found, as GET /jobs says; canceling twice changes nothing.
      if (status === "none" || status === "expired" || isOverdue(state, command.now)) {
        return Result.fail(new JobNotFound({ jobId: command.jobId }))
      }
      if (status === "canceled") return none
      if (isTerminal(status)) return Result.fail(new JobAlreadyFinished({ jobId: command.jobId, status }))
      return emit({ _tag: "JobCanceled", v: 1, jobId: command.jobId, at: command.now })
    case "RetryJob": {
      // Like a cancel, a job past its lifetime is not found: nobody could read what a retry would make of it.
      if (state === null || status === "expired" || isOverdue(state, command.now)) {
        return Result.fail(new JobNotFound({ jobId: command.jobId }))
      }
      if (command.retry !== undefined && retriesOf(state) >= command.retry) return none
      const notRetryable = (reason: JobNotRetryable["reason"], detail: string) =>
        Result.fail(new JobNotRetryable({ jobId: command.jobId, reason, detail }))
      if (status === "canceled") return notRetryable("canceled", status)
      if (status !== "failed" || state.error === null) return notRetryable("not_failed", status)
      if (!isRetryableFailure(state.error.code)) return notRetryable("not_retryable", state.error.code)
      return emit({
        _tag: "JobRetried",
        v: 1,
        jobId: command.jobId,
        retry: retriesOf(state) + 1,
        attempt: state.attempt,
        by: command.by,
        ...(command.claim === undefined ? {} : { claim: command.claim }),
        at: command.now
      })
    }
    case "StartRecording":
    case "ReportRecording":
    case "KeepRecording":
    case "StopRecording":
      return decideRecording(command, state, status, isOverdue(state, command.now))
    case "ScheduleJob":
    case "RecordLiveProbe":
    case "BeginLiveJob":
    case "GiveUpWaiting":
    case "AwaitStart":
      return decideSchedule(command, state)
  }
}

export const JobDecider: Decider<JobCommand, JobEvent, JobState, JobRejection> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob
}

// Commands of the job aggregate and the pure decide function that turns them into JobEvents.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { InvalidJobTransition, JobAlreadyExists, JobAlreadyFinished, JobNotFound, JobNotRetryable } from "../DomainErrors.ts"
import { type DownloadOptions, hasOptions } from "./DownloadOptions.ts"
import type { JobArtifact, JobError, JobEvent, JobRetriedBy, JobSource } from "./JobEvent.ts"
import { isRetryableFailure } from "./JobFailures.ts"
import { evolveJob, initialJobState, isTerminal, type JobState, type JobStatus, jobStatus, retriesOf } from "./JobState.ts"

export type JobCommand =
  | {
      readonly _tag: "QueueJob"
      readonly jobId: string
      readonly projectId: string
      readonly platform: string
      readonly format: string
      readonly source: JobSource
      readonly now: number
      readonly lifetimeMs: number
      readonly options?: DownloadOptions
      readonly batch?: { readonly batchId: string; readonly entryId: string }
    }
  | { readonly _tag: "StartJob"; readonly jobId: string; readonly workerId: string; readonly now: number }
  | { readonly _tag: "ReportProgress"; readonly jobId: string; readonly percent: number; readonly now: number }
  | {
      readonly _tag: "CompleteJob"
      readonly jobId: string
      readonly artifact: JobArtifact
      readonly now: number
      /** The platform of the extractor that handled the download, given when it differs from the queued one. */
      readonly platform?: string
    }
  | { readonly _tag: "FailJob"; readonly jobId: string; readonly error: JobError; readonly now: number }
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
    }

export type JobRejection = JobAlreadyExists | InvalidJobTransition | JobNotFound | JobAlreadyFinished | JobNotRetryable

type Decision = Result.Result<ReadonlyArray<JobEvent>, JobRejection>

const none: Decision = Result.succeed([])
const emit = (...events: ReadonlyArray<JobEvent>): Decision => Result.succeed(events)
const reject = (status: JobStatus, command: JobCommand): Decision =>
  Result.fail(new InvalidJobTransition({ jobId: command.jobId, status, command: command._tag }))

const isOverdue = (state: JobState, now: number) => state !== null && now >= state.expiresAt

export const decideJob = (command: JobCommand, state: JobState): Decision => {
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
        ...(command.batch === undefined ? {} : { batch: command.batch })
      })
    case "StartJob":
      if (state === null || isTerminal(status)) return reject(status, command)
      if (isOverdue(state, command.now)) return emit({ _tag: "JobExpired", v: 1, jobId: command.jobId, at: command.now })
      // A redelivered job starts again with the next attempt number.
      return emit({
        _tag: "JobStarted",
        v: 1,
        jobId: command.jobId,
        attempt: state.attempt + 1,
        workerId: command.workerId,
        at: command.now
      })
    case "ReportProgress": {
      if (state === null || status !== "processing") return none
      const percent = Math.min(100, Math.max(0, Math.floor(command.percent)))
      // Progress only moves forward; a repeated or smaller value is not news.
      if (percent <= state.progress) return none
      return emit({ _tag: "JobProgressed", v: 1, jobId: command.jobId, percent, at: command.now })
    }
    case "CompleteJob":
      if (status === "completed") return none
      if (status !== "processing") return reject(status, command)
      return emit({
        _tag: "JobCompleted",
        v: 1,
        jobId: command.jobId,
        artifact: command.artifact,
        ...(command.platform === undefined ? {} : { platform: command.platform }),
        at: command.now
      })
    case "FailJob":
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
        at: command.now
      })
    }
  }
}

export const JobDecider: Decider<JobCommand, JobEvent, JobState, JobRejection> = {
  initialState: initialJobState,
  evolve: evolveJob,
  decide: decideJob
}

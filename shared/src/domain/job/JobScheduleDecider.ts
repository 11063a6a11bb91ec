// Extension: the scheduled job's commands (schedule, wait for the start of a stream a run found not begun, record a
// probe, begin, give up) and their pure decisions; the job decider hands these commands here.
import { Result } from "effect"
import { type Decision, emit, none } from "../Decider.ts"
import { InvalidJobTransition, JobAlreadyExists, RunNotCurrent } from "../DomainErrors.ts"
import type { DownloadFormat } from "../media/FormatId.ts"
import { type DownloadOptions, hasOptions } from "./DownloadOptions.ts"
import type { JobEvent, JobSource } from "./JobEvent.ts"
import { LIVE_NOT_STARTED_ERROR, type LiveWaitSettings, MAX_FAILED_PROBES, probeDelay } from "./JobSchedule.ts"
import type { LiveProbeOutcome } from "./JobScheduleEvent.ts"
import { isTerminal, type JobState, jobStatus, retriesOf } from "./JobState.ts"

export type JobScheduleCommand =
  | {
      readonly _tag: "ScheduleJob"
      readonly jobId: string
      readonly projectId: string
      readonly platform: string
      readonly format: DownloadFormat
      readonly source: JobSource
      readonly now: number
      /** A job's lifetime (API_JOB_TTL_SECONDS): it runs from the end of the wait. */
      readonly lifetimeMs: number
      /** The announced start (release_at); null when the media did not say. */
      readonly startsAt: number | null
      readonly live: LiveWaitSettings
      readonly options?: DownloadOptions
      readonly batch?: { readonly batchId: string; readonly entryId: string }
    }
  | {
      readonly _tag: "RecordLiveProbe"
      readonly jobId: string
      readonly outcome: LiveProbeOutcome
      /** The start the media announces now, when the probe read one. */
      readonly startsAt?: number
      readonly now: number
      readonly live: LiveWaitSettings
    }
  | {
      readonly _tag: "BeginLiveJob"
      readonly jobId: string
      readonly now: number
      readonly lifetimeMs: number
      /** The admission claim the job was admitted with. */
      readonly claim?: string
    }
  | { readonly _tag: "GiveUpWaiting"; readonly jobId: string; readonly now: number }
  | {
      /** A run found the job's stream not begun (yt-dlp says it is upcoming): the job waits for it, or fails. */
      readonly _tag: "AwaitStart"
      readonly jobId: string
      /** The run's attempt: a run a later one took over decides nothing. */
      readonly attempt: number
      /** The start the media announces (release_timestamp), null when it does not say. */
      readonly startsAt: number | null
      readonly now: number
      /** A job's lifetime (API_JOB_TTL_SECONDS): it runs from the end of the wait. */
      readonly lifetimeMs: number
      readonly live: LiveWaitSettings
    }

export const isScheduleCommand = (command: { readonly _tag: string }): command is JobScheduleCommand =>
  command._tag === "ScheduleJob" ||
  command._tag === "RecordLiveProbe" ||
  command._tag === "BeginLiveJob" ||
  command._tag === "GiveUpWaiting" ||
  command._tag === "AwaitStart"

/** The rejections of these commands (a part of the job decider's JobRejection). */
type ScheduleRejection = JobAlreadyExists | InvalidJobTransition | RunNotCurrent

/** A job that waited for its stream, was found live, and whose run still found it not begun. */
const STILL_NOT_BEGUN_ERROR = {
  code: "live_not_started",
  message: "The stream had still not begun when its download ran, though the job had waited for it once.",
  retryable: false
} as const

const giveUp = (jobId: string, now: number): Decision<JobEvent, ScheduleRejection> =>
  emit({ _tag: "JobFailed", v: 1, jobId, error: LIVE_NOT_STARTED_ERROR, at: now })

/** A scheduled job whose stream a probe has not yet found live: the only one a probe or a give-up changes. */
const waiting = (state: JobState) =>
  jobStatus(state) === "scheduled" && state?.schedule?.liveAt === undefined ? state?.schedule : undefined

export const decideSchedule = (command: JobScheduleCommand, state: JobState): Decision<JobEvent, ScheduleRejection> => {
  switch (command._tag) {
    case "ScheduleJob": {
      if (state !== null) return Result.fail(new JobAlreadyExists({ jobId: command.jobId }))
      const startsAt = command.startsAt ?? command.now
      const waitUntil = command.now + command.live.waitMaxMs
      return emit({
        _tag: "JobScheduled",
        v: 1,
        jobId: command.jobId,
        projectId: command.projectId,
        platform: command.platform,
        format: command.format,
        source: command.source,
        createdAt: command.now,
        expiresAt: waitUntil + command.lifetimeMs,
        startsAt,
        waitUntil,
        nextProbeAt: command.now + probeDelay(startsAt, command.now, command.live),
        ...(hasOptions(command.options) ? { options: command.options } : {}),
        ...(command.batch === undefined ? {} : { batch: command.batch })
      })
    }
    case "RecordLiveProbe": {
      // A probe of a job that began, ended or was canceled meanwhile records nothing: it came too late to matter.
      const schedule = waiting(state)
      if (schedule === undefined) return none
      const { outcome, now } = command
      if (outcome === "live") {
        return emit({ _tag: "JobLiveProbed", v: 1, jobId: command.jobId, outcome, failedProbes: 0, nextProbeAt: now, at: now })
      }
      const failedProbes = outcome === "failed" ? schedule.failedProbes + 1 : 0
      if (now >= schedule.waitUntil || failedProbes >= MAX_FAILED_PROBES) return giveUp(command.jobId, now)
      const startsAt = command.startsAt ?? schedule.startsAt
      return emit({
        _tag: "JobLiveProbed",
        v: 1,
        jobId: command.jobId,
        outcome,
        failedProbes,
        ...(command.startsAt === undefined ? {} : { startsAt: command.startsAt }),
        nextProbeAt: Math.min(schedule.waitUntil, now + probeDelay(startsAt, now, command.live)),
        at: now
      })
    }
    case "BeginLiveJob": {
      const status = jobStatus(state)
      if (status !== "scheduled") return Result.fail(new InvalidJobTransition({ jobId: command.jobId, status, command: command._tag }))
      return emit({
        _tag: "JobLiveBegan",
        v: 1,
        jobId: command.jobId,
        ...(command.claim === undefined ? {} : { claim: command.claim }),
        expiresAt: command.now + command.lifetimeMs,
        at: command.now
      })
    }
    case "AwaitStart": {
      const status = jobStatus(state)
      if (state !== null && command.attempt !== state.attempt)
        return Result.fail(new RunNotCurrent({ jobId: command.jobId, reason: "superseded" }))
      // The job ended meanwhile (canceled, expired): the run's end changes nothing, as a failure's would not.
      if (isTerminal(status)) return none
      if (state === null || status !== "processing") {
        return Result.fail(new InvalidJobTransition({ jobId: command.jobId, status, command: command._tag }))
      }
      // A job that waited already (scheduled, or queued before and waited for its start once) is not made to wait again.
      if (state.schedule !== undefined) {
        return emit({ _tag: "JobFailed", v: 1, jobId: command.jobId, error: STILL_NOT_BEGUN_ERROR, at: command.now })
      }
      const startsAt = command.startsAt ?? command.now
      const waitUntil = command.now + command.live.waitMaxMs
      return emit({
        _tag: "JobAwaitingStart",
        v: 1,
        jobId: command.jobId,
        attempt: command.attempt,
        retry: retriesOf(state) + 1,
        startsAt,
        waitUntil,
        nextProbeAt: command.now + probeDelay(startsAt, command.now, command.live),
        expiresAt: waitUntil + command.lifetimeMs,
        at: command.now
      })
    }
    case "GiveUpWaiting": {
      const schedule = waiting(state)
      if (schedule === undefined || command.now < schedule.waitUntil) return none
      return giveUp(command.jobId, command.now)
    }
  }
}

// Extension: live recording's commands on the job aggregate and their pure decisions (JobDecider hands them here).
import { Result } from "effect"
import { type Decision, emit, none } from "../Decider.ts"
import { InvalidJobTransition, JobNotFound, JobNotLive, RunNotCurrent } from "../DomainErrors.ts"
import type { JobEvent } from "./JobEvent.ts"
import type { RecordingEnd } from "./JobRecording.ts"
import type { JobState, JobStatus } from "./JobState.ts"

export type RecordingCommand =
  | {
      /** The run found its media live and records it. */
      readonly _tag: "StartRecording"
      readonly jobId: string
      readonly attempt: number
      readonly maxDurationSeconds: number
      readonly now: number
    }
  | {
      /** What the run's recording holds so far; `ended` once it ended (before the run completes the job). */
      readonly _tag: "ReportRecording"
      readonly jobId: string
      readonly attempt: number
      readonly seconds: number
      readonly bytes: number
      readonly ended?: RecordingEnd
      readonly now: number
    }
  | {
      /** The run put the recording's first `chunks` parts into the artifact store (kept should the run die). */
      readonly _tag: "KeepRecording"
      readonly jobId: string
      readonly attempt: number
      readonly chunks: number
      readonly bytes: number
      readonly seconds: number
      readonly now: number
    }
  | {
      /** A client asks the recording to stop and keep what it holds (POST /v1/jobs/{jobId}/stop). */
      readonly _tag: "StopRecording"
      readonly jobId: string
      readonly now: number
    }

type Rejection = InvalidJobTransition | JobNotFound | RunNotCurrent | JobNotLive

export const decideRecording = (
  command: RecordingCommand,
  state: JobState,
  status: JobStatus,
  overdue: boolean
): Decision<JobEvent, Rejection> => {
  switch (command._tag) {
    case "StartRecording":
      if (state === null || status !== "processing") {
        return Result.fail(new InvalidJobTransition({ jobId: command.jobId, status, command: command._tag }))
      }
      if (command.attempt !== state.attempt) return Result.fail(new RunNotCurrent({ jobId: command.jobId, reason: "superseded" }))
      // Said again (a retried append): the recording started already.
      if (state.recording !== undefined) return none
      return emit({
        _tag: "JobRecordingStarted",
        v: 1,
        jobId: command.jobId,
        attempt: command.attempt,
        maxDurationSeconds: Math.max(0, Math.floor(command.maxDurationSeconds)),
        at: command.now
      })
    case "ReportRecording": {
      // Like progress: a report of a run that is not the current one, or of no recording, is not news.
      const recording = state?.recording
      if (state === null || status !== "processing" || command.attempt !== state.attempt || recording === undefined) return none
      if (recording.ended !== null) return none
      const seconds = Math.max(recording.seconds, Math.floor(command.seconds))
      const bytes = Math.max(recording.bytes, Math.floor(command.bytes))
      if (command.ended === undefined && seconds === recording.seconds && bytes === recording.bytes) return none
      return emit({
        _tag: "JobRecordingProgressed",
        v: 1,
        jobId: command.jobId,
        seconds,
        bytes,
        ...(command.ended === undefined ? {} : { ended: command.ended }),
        at: command.now
      })
    }
    case "KeepRecording": {
      // Like a report: a run that is not the current one, or a recording that ended, keeps nothing more.
      const recording = state?.recording
      if (state === null || status !== "processing" || command.attempt !== state.attempt || recording === undefined) return none
      if (recording.ended !== null) return none
      // Said again (a retried append): the recording holds that many parts already.
      const chunks = Math.floor(command.chunks)
      if (chunks <= (recording.kept?.chunks ?? 0)) return none
      return emit({
        _tag: "JobRecordingKept",
        v: 1,
        jobId: command.jobId,
        chunks,
        bytes: Math.max(0, Math.floor(command.bytes)),
        seconds: Math.max(0, Math.floor(command.seconds)),
        at: command.now
      })
    }
    case "StopRecording": {
      // Like a cancel, a job past its lifetime is not found.
      if (state === null || status === "expired" || overdue) return Result.fail(new JobNotFound({ jobId: command.jobId }))
      const recording = state.recording
      if (status !== "processing" || recording === undefined || recording.ended !== null) {
        return Result.fail(new JobNotLive({ jobId: command.jobId, status }))
      }
      // Asked twice: the recording is stopping already.
      if (recording.stopRequestedAt !== null) return none
      return emit({ _tag: "JobStopRequested", v: 1, jobId: command.jobId, at: command.now })
    }
  }
}

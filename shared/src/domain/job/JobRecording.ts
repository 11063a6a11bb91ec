// Extension: live recording. The events a job's run records when its media turns out to be a live stream, the
// recording's part of the job's state, and how those events fold into it.
import { Schema } from "effect"

const V1 = Schema.Literal(1)
const EpochMillis = Schema.Number
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * Why a recording ended: the stream ended, a client stopped it (POST /v1/jobs/{jobId}/stop), max_duration was reached,
 * its bytes reached the job's byte cap (MAX_FILE_SIZE_MB or what the project's monthly byte quota left), or its worker
 * was lost after keeping parts of it (the job completed partial from those: JobCompleted's `partial`).
 */
export const RecordingEnd = Schema.Literals(["stream_ended", "stopped", "max_duration", "size_limit", "worker_lost"])
export type RecordingEnd = typeof RecordingEnd.Type

/** The run (attempt) found the media live (yt-dlp's is_live) and records it until it ends, is stopped or is capped. */
export const JobRecordingStarted = Schema.TaggedStruct("JobRecordingStarted", {
  v: V1,
  jobId: Schema.String,
  /** The run's attempt: the recording is that run's, and a later run cannot go on with it. */
  attempt: Schema.Number,
  /** The recording's cap in seconds: the job's max_duration within LIVE_MAX_DURATION_SECONDS. */
  maxDurationSeconds: Count,
  at: EpochMillis
})
export type JobRecordingStarted = typeof JobRecordingStarted.Type

/** What the recording holds so far (wall-clock seconds since it started, bytes written); `ended` on the last one. */
export const JobRecordingProgressed = Schema.TaggedStruct("JobRecordingProgressed", {
  v: V1,
  jobId: Schema.String,
  seconds: Count,
  bytes: Count,
  ended: Schema.optionalKey(RecordingEnd),
  at: EpochMillis
})
export type JobRecordingProgressed = typeof JobRecordingProgressed.Type

/**
 * The recording's run put its first `chunks` parts into the artifact store under the job's key (MPEG-TS cut at packet
 * boundaries, in order): should the run die, the job's next run joins them and completes the job partial.
 */
export const JobRecordingKept = Schema.TaggedStruct("JobRecordingKept", {
  v: V1,
  jobId: Schema.String,
  chunks: Count,
  /** Bytes and seconds of the recording those chunks hold. */
  bytes: Count,
  seconds: Count,
  at: EpochMillis
})
export type JobRecordingKept = typeof JobRecordingKept.Type

/** What of a recording is kept in the artifact store (JobRecordingKept). */
export const KeptRecording = Schema.Struct({ chunks: Schema.Number, bytes: Schema.Number, seconds: Schema.Number })
export type KeptRecording = typeof KeptRecording.Type

/** Why a completed job holds less than it was asked for: its recording's worker was lost (the kept parts joined). */
export const PartialReason = Schema.Literals(["worker_lost"])
export type PartialReason = typeof PartialReason.Type

/** A client of the job's project asked the recording to stop and keep what it holds (the run then completes the job). */
export const JobStopRequested = Schema.TaggedStruct("JobStopRequested", {
  v: V1,
  jobId: Schema.String,
  at: EpochMillis
})
export type JobStopRequested = typeof JobStopRequested.Type

/** The recording as the job's state holds it. */
export const JobRecordingView = Schema.Struct({
  attempt: Schema.Number,
  startedAt: EpochMillis,
  maxDurationSeconds: Schema.Number,
  seconds: Schema.Number,
  bytes: Schema.Number,
  stopRequestedAt: Schema.NullOr(EpochMillis),
  ended: Schema.NullOr(RecordingEnd),
  /** The parts kept in the artifact store so far (absent until the first). */
  kept: Schema.optionalKey(KeptRecording)
})
export type JobRecordingView = typeof JobRecordingView.Type

export type JobRecordingEvent = JobRecordingStarted | JobRecordingProgressed | JobStopRequested | JobRecordingKept

/** The part of a job's state a recording event changes: the recording, or nothing when the event does not apply. */
interface Recordable {
  readonly status: string
  readonly attempt: number
  readonly recording?: JobRecordingView
}

/** Folds a recording event into a live job's state (ended jobs never reach here: JobState absorbs events for them). */
export const evolveRecording = <S extends Recordable>(state: S, event: JobRecordingEvent): S => {
  switch (event._tag) {
    case "JobRecordingStarted":
      if (state.status !== "processing" || event.attempt !== state.attempt || state.recording !== undefined) return state
      return {
        ...state,
        recording: {
          attempt: event.attempt,
          startedAt: event.at,
          maxDurationSeconds: event.maxDurationSeconds,
          seconds: 0,
          bytes: 0,
          stopRequestedAt: null,
          ended: null
        }
      }
    case "JobRecordingProgressed": {
      const recording = state.recording
      if (recording === undefined || recording.ended !== null) return state
      return {
        ...state,
        recording: {
          ...recording,
          seconds: Math.max(recording.seconds, event.seconds),
          bytes: Math.max(recording.bytes, event.bytes),
          ended: event.ended ?? null
        }
      }
    }
    case "JobStopRequested": {
      const recording = state.recording
      if (recording === undefined || recording.stopRequestedAt !== null || recording.ended !== null) return state
      return { ...state, recording: { ...recording, stopRequestedAt: event.at } }
    }
    case "JobRecordingKept": {
      const recording = state.recording
      if (recording === undefined || recording.ended !== null || event.chunks <= (recording.kept?.chunks ?? 0)) return state
      return { ...state, recording: { ...recording, kept: { chunks: event.chunks, bytes: event.bytes, seconds: event.seconds } } }
    }
  }
}

/** Whether two states show a client the same recording (the live streams send a job again when it changed). */
export const sameRecording = (a: Recordable, b: Recordable): boolean =>
  a.recording === b.recording ||
  (a.recording !== undefined &&
    b.recording !== undefined &&
    a.recording.seconds === b.recording.seconds &&
    a.recording.bytes === b.recording.bytes &&
    a.recording.stopRequestedAt === b.recording.stopRequestedAt &&
    a.recording.ended === b.recording.ended)

/** A recording is going on: started, not ended, whether or not a stop was asked. */
export const isRecording = (state: Recordable | null): boolean =>
  state !== null && state.status === "processing" && state.recording !== undefined && state.recording.ended === null

/** The error a job shows whose recording's worker died mid-recording before it kept any part of it. */
export const RECORDING_INTERRUPTED_MESSAGE =
  "The recording's worker stopped mid-recording and what it had recorded is lost; a retry records the stream again from now."

/**
 * A recording whose run died after keeping parts of it (the job's attempt moved past the recording's): the job's run
 * now joins those parts and completes the job partial instead of recording.
 */
export const keptOfLostRecording = (state: Recordable | null): KeptRecording | null => {
  const recording = state?.recording
  if (state === null || recording === undefined || state.status !== "processing" || recording.ended !== null) return null
  if (recording.attempt === state.attempt || recording.kept === undefined || recording.kept.chunks === 0) return null
  return recording.kept
}

/** Whether a recording that never ended has parts kept (its job's next run joins them instead of failing it). */
export const hasKeptParts = (state: Recordable | null): boolean => (state?.recording?.kept?.chunks ?? 0) > 0

// Specifications of live recording on the job aggregate: a run's recording, a client's stop, a recording's dead worker.
import { describe, expect, it } from "vitest"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import { jobEventId } from "../../application/job/JobCommands.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobEvent } from "./JobEvent.ts"
import { isRecording, keptOfLostRecording } from "./JobRecording.ts"
import { evolveJob, initialJobState } from "./JobState.ts"

const given = DeciderSpecification.for(JobDecider)
const jobId = "job_live"
const T0 = 1_000_000
const LIFETIME = 3_600_000

const queued: JobEvent = jobQueued("prj_a", jobId, T0, { expiresAt: T0 + LIFETIME })
const started = (attempt: number): JobEvent => ({ _tag: "JobStarted", v: 1, jobId, attempt, workerId: "w1", at: T0 + 10 })
const recordingStarted = (attempt = 1): JobEvent => ({
  _tag: "JobRecordingStarted",
  v: 1,
  jobId,
  attempt,
  maxDurationSeconds: 600,
  at: T0 + 20
})
const recorded = (seconds: number, bytes: number, ended?: "stream_ended" | "stopped" | "max_duration"): JobEvent => ({
  _tag: "JobRecordingProgressed",
  v: 1,
  jobId,
  seconds,
  bytes,
  ...(ended === undefined ? {} : { ended }),
  at: T0 + 30
})
const kept = (chunks: number, bytes = chunks * 1000, seconds = chunks * 4): JobEvent => ({
  _tag: "JobRecordingKept",
  v: 1,
  jobId,
  chunks,
  bytes,
  seconds,
  at: T0 + 35
})
const stopRequested: JobEvent = { _tag: "JobStopRequested", v: 1, jobId, at: T0 + 40 }
const artifact = { key: "k", filename: "f.mp4", mimeType: "video/mp4", sizeBytes: 1, availableUntil: T0 + 2 * LIFETIME }
const completed: JobEvent = { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 50 }
const fold = (events: ReadonlyArray<JobEvent>) => events.reduce(evolveJob, initialJobState())

describe("live recording on the job", () => {
  describe("StartRecording", () => {
    const start = { _tag: "StartRecording", jobId, attempt: 1, maxDurationSeconds: 600, now: T0 + 20 } as const
    it("records that the current run records a live stream", () =>
      given([queued, started(1)])
        .when(start)
        .then([recordingStarted(1)]))
    it("is said once: a repeated start records nothing", () =>
      given([queued, started(1), recordingStarted(1)])
        .when(start)
        .thenNothing())
    it("a run a later attempt took over records nothing", () =>
      given([queued, started(1), started(2)])
        .when(start)
        .thenRejects("RunNotCurrent"))
    it("a queued job records nothing", () => given([queued]).when(start).thenRejects("InvalidJobTransition"))
  })

  describe("ReportRecording", () => {
    const report = { _tag: "ReportRecording", jobId, attempt: 1, seconds: 4, bytes: 1000, now: T0 + 30 } as const
    it("records the seconds and bytes so far", () =>
      given([queued, started(1), recordingStarted(1)])
        .when(report)
        .then([recorded(4, 1000)]))
    it("the same figures again are not news", () =>
      given([queued, started(1), recordingStarted(1), recorded(4, 1000)])
        .when(report)
        .thenNothing())
    it("the last report says why the recording ended", () =>
      given([queued, started(1), recordingStarted(1), recorded(4, 1000)])
        .when({ ...report, ended: "stream_ended" })
        .then([recorded(4, 1000, "stream_ended")]))
    it("a job that records nothing takes no report", () =>
      given([queued, started(1)])
        .when(report)
        .thenNothing())
    it("a superseded run reports nothing", () =>
      given([queued, started(1), recordingStarted(1), started(2)])
        .when(report)
        .thenNothing())
  })

  describe("StopRecording", () => {
    const stop = { _tag: "StopRecording", jobId, now: T0 + 40 } as const
    it("asks a recording to stop", () =>
      given([queued, started(1), recordingStarted(1)])
        .when(stop)
        .then([stopRequested]))
    it("asking twice changes nothing", () =>
      given([queued, started(1), recordingStarted(1), stopRequested])
        .when(stop)
        .thenNothing())
    it("a job that is not recording is not live", () =>
      given([queued, started(1)])
        .when(stop)
        .thenRejects("JobNotLive"))
    it("a queued job is not live", () => given([queued]).when(stop).thenRejects("JobNotLive"))
    it("an ended recording is not live", () =>
      given([queued, started(1), recordingStarted(1), recorded(9, 10, "stream_ended")])
        .when(stop)
        .thenRejects("JobNotLive"))
    it("a completed recording is not live", () =>
      given([queued, started(1), recordingStarted(1), completed])
        .when(stop)
        .thenRejects("JobNotLive"))
    it("an unknown job is not found", () => given([]).when(stop).thenRejects("JobNotFound"))
    it("a job past its lifetime is not found", () =>
      given([queued, started(1), recordingStarted(1)])
        .when({ ...stop, now: T0 + LIFETIME })
        .thenRejects("JobNotFound"))
  })

  describe("KeepRecording", () => {
    const keep = { _tag: "KeepRecording", jobId, attempt: 1, chunks: 2, bytes: 2000, seconds: 8, now: T0 + 35 } as const
    it("records how many parts the run kept in the artifact store", () =>
      given([queued, started(1), recordingStarted(1), kept(1)])
        .when(keep)
        .then([kept(2, 2000, 8)]))
    it("is said once: a count the job holds already records nothing", () =>
      given([queued, started(1), recordingStarted(1), kept(2)])
        .when(keep)
        .thenNothing())
    it("a run a later attempt took over, or a recording that ended, keeps nothing more", () => {
      given([queued, started(1), recordingStarted(1), started(2)])
        .when(keep)
        .thenNothing()
      given([queued, started(1), recordingStarted(1), recorded(8, 2000, "stopped")])
        .when(keep)
        .thenNothing()
    })
  })

  describe("a recording's worker died (the next run's StartJob)", () => {
    const restart = { _tag: "StartJob", jobId, workerId: "w2", now: T0 + 60 } as const
    it("fails the job retryable with recording_interrupted instead of recording again from now", () =>
      given([queued, started(1), recordingStarted(1), recorded(4, 1000)])
        .when(restart)
        .then([
          {
            _tag: "JobFailed",
            v: 1,
            jobId,
            error: { code: "recording_interrupted", message: expect.any(String), retryable: true },
            at: T0 + 60
          } as unknown as JobEvent
        ]))
    it("with parts kept, starts the next run (which joins them) instead of failing the job", () =>
      given([queued, started(1), recordingStarted(1), recorded(8, 2000), kept(2)])
        .when(restart)
        .then([{ _tag: "JobStarted", v: 1, jobId, attempt: 2, workerId: "w2", at: T0 + 60 }]))
    it("that run completes the job partial worker_lost: the recording ended with its lost worker", () =>
      given([queued, started(1), recordingStarted(1), kept(2), started(2)])
        .when({ _tag: "CompleteJob", jobId, artifact, attempt: 2, partial: "worker_lost", now: T0 + 70 })
        .then([{ _tag: "JobCompleted", v: 1, jobId, artifact, partial: "worker_lost", at: T0 + 70 }]))
    it("a job that was not recording starts its next run as before", () =>
      given([queued, started(1)])
        .when(restart)
        .then([{ _tag: "JobStarted", v: 1, jobId, attempt: 2, workerId: "w2", at: T0 + 60 }]))
  })

  describe("the job's state", () => {
    it("holds the recording while it records, then its end", () => {
      const recording = fold([queued, started(1), recordingStarted(1), recorded(4, 1000), stopRequested])
      expect(isRecording(recording)).toBe(true)
      expect(recording?.recording).toEqual({
        attempt: 1,
        startedAt: T0 + 20,
        maxDurationSeconds: 600,
        seconds: 4,
        bytes: 1000,
        stopRequestedAt: T0 + 40,
        ended: null
      })
      const done = fold([queued, started(1), recordingStarted(1), recorded(6, 2000, "stopped"), completed])
      expect(done?.status).toBe("completed")
      expect(done?.recording?.ended).toBe("stopped")
      expect(isRecording(done)).toBe(false)
    })
    it("a retry starts without the failed try's recording", () => {
      const failed: JobEvent = {
        _tag: "JobFailed",
        v: 1,
        jobId,
        error: { code: "recording_interrupted", message: "m", retryable: true },
        at: T0 + 60
      }
      const retried: JobEvent = { _tag: "JobRetried", v: 1, jobId, retry: 1, attempt: 1, by: "client", at: T0 + 70 }
      expect(fold([queued, started(1), recordingStarted(1), failed, retried])?.recording).toBeUndefined()
    })
    it("a lost recording with parts kept is the next run's to join; the recording's own run or none kept is not", () => {
      expect(keptOfLostRecording(fold([queued, started(1), recordingStarted(1), kept(3), started(2)]))).toEqual({
        chunks: 3,
        bytes: 3000,
        seconds: 12
      })
      expect(keptOfLostRecording(fold([queued, started(1), recordingStarted(1), kept(3)]))).toBeNull()
      expect(keptOfLostRecording(fold([queued, started(1), recordingStarted(1), started(2)]))).toBeNull()
    })
    it("a job completed partial says so, and a retry forgets it", () => {
      const done = fold([
        queued,
        started(1),
        recordingStarted(1),
        kept(2),
        started(2),
        { ...completed, partial: "worker_lost" } as JobEvent
      ])
      expect(done).toMatchObject({ status: "completed", partial: "worker_lost", recording: { ended: "worker_lost" } })
    })
    it("each report is its own append; a start is one per attempt", () => {
      expect(jobEventId(recorded(4, 1000))).not.toBe(jobEventId(recorded(6, 1000)))
      expect(jobEventId(recordingStarted(1))).toBe(jobEventId({ ...recordingStarted(1), at: T0 + 99 } as JobEvent))
    })
  })
})

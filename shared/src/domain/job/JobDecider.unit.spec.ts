// Specifications of the job decider: every command in every state it can meet.
import { describe, expect, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import { jobEventId } from "../../application/job/JobCommands.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobArtifact, JobEvent } from "./JobEvent.ts"
import { parseFormatId } from "../media/FormatId.ts"

const given = DeciderSpecification.for(JobDecider)
const jobId = "job_a"
const T0 = 1_000_000
const LIFETIME = 3_600_000

const queued: JobEvent = jobQueued("prj_a", jobId, T0, {
  platform: "vimeo",
  source: { url: "https://vimeo.com/1", mediaId: "med_a" },
  expiresAt: T0 + LIFETIME
})
const started = (attempt: number, at = T0 + 10): JobEvent => ({ _tag: "JobStarted", v: 1, jobId, attempt, workerId: "w1", at })
const progressed = (percent: number): JobEvent => ({ _tag: "JobProgressed", v: 1, jobId, percent, at: T0 + 20 })
const artifact: JobArtifact = {
  key: "prj_a/job_a/v.mp4",
  filename: "v.mp4",
  mimeType: "video/mp4",
  sizeBytes: 42,
  availableUntil: T0 + 2 * LIFETIME
}
const completed: JobEvent = { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 30 }
const failure = { code: "download_failed", message: "boom", retryable: false } as const
const failed: JobEvent = { _tag: "JobFailed", v: 1, jobId, error: failure, at: T0 + 30 }
/** A job's two ways of finishing, by name. */
const FINISHED = [
  ["completed", completed],
  ["failed", failed]
] as const
const expired: JobEvent = { _tag: "JobExpired", v: 1, jobId, at: T0 + LIFETIME }

describe("JobDecider", () => {
  describe("QueueJob", () => {
    const queue = {
      _tag: "QueueJob",
      jobId,
      projectId: "prj_a",
      platform: "vimeo",
      format: parseFormatId("video_best"),
      source: { url: "https://vimeo.com/1", mediaId: "med_a" },
      now: T0,
      lifetimeMs: LIFETIME
    } as const
    it("queues a new job with its expiry", () => given([]).when(queue).then([queued]))
    it("rejects queueing the same job twice", () => given([queued]).when(queue).thenRejects("JobAlreadyExists"))
    it("records the options a client asked for", () => {
      const options = { section: { start: 30, end: 45, precise: true } }
      given([])
        .when({ ...queue, options })
        .then([{ ...queued, options } as JobEvent])
    })
    it("records no options field for empty options (a plain download looks as before)", () =>
      given([])
        .when({ ...queue, options: {} })
        .then([queued]))
  })

  describe("StartJob", () => {
    const start = (now = T0 + 10) => ({ _tag: "StartJob", jobId, workerId: "w1", now }) as const
    it("starts a queued job as attempt 1", () =>
      given([queued])
        .when(start())
        .then([started(1)]))
    it("restarts a redelivered job with the next attempt", () =>
      given([queued, started(1), progressed(30)])
        .when(start(T0 + 50))
        .then([started(2, T0 + 50)]))
    it("expires instead of starting a job past its lifetime", () =>
      given([queued])
        .when(start(T0 + LIFETIME))
        .then([{ _tag: "JobExpired", v: 1, jobId, at: T0 + LIFETIME }]))
    it("rejects starting an unknown job", () => given([]).when(start()).thenRejects("InvalidJobTransition"))
    it.each(FINISHED)("rejects starting a %s job", (_, finished) => {
      given([queued, started(1), finished])
        .when(start())
        .thenRejects("InvalidJobTransition")
    })
  })

  describe("ReportProgress", () => {
    const report = (percent: number) => ({ _tag: "ReportProgress", jobId, percent, now: T0 + 20 }) as const
    it.each([
      ["records progress of a processing job", 30, 30],
      ["floors fractional percents", 30.9, 30],
      ["clamps above 100", 250, 100]
    ])("%s", (_, reported, recorded) => {
      given([queued, started(1)])
        .when(report(reported))
        .then([progressed(recorded)])
    })
    it("ignores negative progress (clamped to 0, not news)", () =>
      given([queued, started(1)])
        .when(report(-5))
        .thenNothing())
    it("ignores progress that does not move forward", () =>
      given([queued, started(1), progressed(50)])
        .when(report(40))
        .thenNothing())
    it("ignores a repeated value", () =>
      given([queued, started(1), progressed(50)])
        .when(report(50))
        .thenNothing())
    it("ignores progress of a queued job", () => given([queued]).when(report(10)).thenNothing())
    it("ignores progress of a completed job", () =>
      given([queued, started(1), completed])
        .when(report(10))
        .thenNothing())
  })

  describe("CompleteJob", () => {
    const complete = { _tag: "CompleteJob", jobId, artifact, now: T0 + 30 } as const
    it("completes a processing job", () =>
      given([queued, started(1)])
        .when(complete)
        .then([completed]))
    it("records the platform of the extractor that handled it, when given", () =>
      given([queued, started(1)])
        .when({ ...complete, platform: "artetv" })
        .then([{ ...completed, platform: "artetv" }]))
    it("is idempotent on a completed job", () =>
      given([queued, started(1), completed])
        .when(complete)
        .thenNothing())
    it("rejects completing a queued job", () => given([queued]).when(complete).thenRejects("InvalidJobTransition"))
    it("rejects completing an unknown job", () => given([]).when(complete).thenRejects("InvalidJobTransition"))
    it("rejects completing a failed job", () =>
      given([queued, started(1), failed])
        .when(complete)
        .thenRejects("InvalidJobTransition"))
  })

  describe("FailJob", () => {
    const fail = { _tag: "FailJob", jobId, error: failure, now: T0 + 30 } as const
    it("fails a processing job", () =>
      given([queued, started(1)])
        .when(fail)
        .then([failed]))
    it("fails a queued job", () => given([queued]).when(fail).then([failed]))
    it("is a no-op on a finished job", () =>
      given([queued, started(1), completed])
        .when(fail)
        .thenNothing())
    it("rejects failing an unknown job", () => given([]).when(fail).thenRejects("InvalidJobTransition"))
  })

  describe("ExpireJob", () => {
    const expire = (now: number) => ({ _tag: "ExpireJob", jobId, now }) as const
    it("expires an overdue queued job", () =>
      given([queued])
        .when(expire(T0 + LIFETIME))
        .then([expired]))
    it("expires an overdue processing job", () =>
      given([queued, started(1)])
        .when(expire(T0 + LIFETIME + 5))
        .then([{ ...expired, at: T0 + LIFETIME + 5 }]))
    it("does nothing before the lifetime ends", () =>
      given([queued])
        .when(expire(T0 + LIFETIME - 1))
        .thenNothing())
    it("does nothing to a completed job", () =>
      given([queued, started(1), completed])
        .when(expire(T0 + 2 * LIFETIME))
        .thenNothing())
    it("does nothing to an unknown job", () =>
      given([])
        .when(expire(T0 + 2 * LIFETIME))
        .thenNothing())
  })

  describe("CancelJob", () => {
    const cancel = (now = T0 + 40) => ({ _tag: "CancelJob", jobId, now }) as const
    const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 40 }
    it("cancels a queued job", () => given([queued]).when(cancel()).then([canceled]))
    it("cancels a processing job", () =>
      given([queued, started(1), progressed(30)])
        .when(cancel())
        .then([canceled]))
    it("is idempotent on a canceled job", () =>
      given([queued, started(1), canceled])
        .when(cancel(T0 + 50))
        .thenNothing())
    it.each(FINISHED)("refuses a %s job as already finished", (_, finished) => {
      given([queued, started(1), finished])
        .when(cancel())
        .thenRejects("JobAlreadyFinished")
    })
    it("does not find an unknown job", () => given([]).when(cancel()).thenRejects("JobNotFound"))
    it("does not find an expired job", () =>
      given([queued, expired])
        .when(cancel(T0 + LIFETIME + 1))
        .thenRejects("JobNotFound"))
    it("does not find a job past its lifetime", () =>
      given([queued])
        .when(cancel(T0 + LIFETIME))
        .thenRejects("JobNotFound"))
    it("a canceled job cannot start, complete or be failed again", () => {
      given([queued, canceled])
        .when({ _tag: "StartJob", jobId, workerId: "w1", now: T0 + 50 })
        .thenRejects("InvalidJobTransition")
      given([queued, started(1), canceled])
        .when({ _tag: "CompleteJob", jobId, artifact, now: T0 + 50 })
        .thenRejects("InvalidJobTransition")
      given([queued, started(1), canceled])
        .when({ _tag: "FailJob", jobId, error: failure, now: T0 + 50 })
        .thenNothing()
    })
  })

  describe("RetryJob", () => {
    const transient = { code: "download_failed", message: "HTTP Error 503", retryable: true } as const
    const failedTransiently = (at = T0 + 30): JobEvent => ({ _tag: "JobFailed", v: 1, jobId, error: transient, at })
    const retry = (by: "automatic" | "client" = "client", now = T0 + 60, number?: number) =>
      ({ _tag: "RetryJob", jobId, by, now, ...(number === undefined ? {} : { retry: number }) }) as const
    const retried = (number: number, attempt: number, by: "automatic" | "client" = "client", at = T0 + 60): JobEvent => ({
      _tag: "JobRetried",
      v: 1,
      jobId,
      retry: number,
      attempt,
      by,
      at
    })
    const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 40 }

    it("queues a failed job again when its failure is retryable, after the runs it had", () =>
      given([queued, started(1), failedTransiently()])
        .when(retry())
        .then([retried(1, 1)]))
    it("numbers a second retry after the first, counting every run so far", () =>
      given([queued, started(1), failedTransiently(), retried(1, 1, "automatic", T0 + 40), started(2, T0 + 50), failedTransiently(T0 + 55)])
        .when(retry("automatic", T0 + 70))
        .then([retried(2, 2, "automatic", T0 + 70)]))
    it("retries a job that failed before it ever started (attempt 0)", () =>
      given([queued, failedTransiently()])
        .when(retry())
        .then([retried(1, 0)]))
    it("does nothing when the retry it names already happened (an automatic retry carried out twice)", () =>
      given([queued, started(1), failedTransiently(), retried(1, 1, "automatic")])
        .when(retry("automatic", T0 + 61, 1))
        .thenNothing())
    it("refuses a failure that is not retryable, naming its code", () => {
      const gone: JobEvent = {
        _tag: "JobFailed",
        v: 1,
        jobId,
        error: { code: "media_unavailable", message: "private", retryable: false },
        at: T0 + 30
      }
      const refused = given([queued, started(1), gone])
        .when(retry())
        .thenRejects("JobNotRetryable")
      expect(refused).toMatchObject({ reason: "not_retryable", detail: "media_unavailable" })
    })
    it("judges by the table, not by the flag the failure was recorded with", () => {
      const unsupported: JobEvent = {
        _tag: "JobFailed",
        v: 1,
        jobId,
        error: { code: "unsupported_platform", message: "no", retryable: true },
        at: T0 + 30
      }
      expect(
        given([queued, started(1), unsupported])
          .when(retry())
          .thenRejects("JobNotRetryable")
      ).toMatchObject({ reason: "not_retryable" })
    })
    it("refuses a canceled job", () =>
      expect(
        given([queued, started(1), canceled])
          .when(retry())
          .thenRejects("JobNotRetryable")
      ).toMatchObject({ reason: "canceled" }))
    it.each([
      ["queued", [queued]],
      ["processing", [queued, started(1)]],
      ["completed", [queued, started(1), completed]],
      ["retried and queued again", [queued, started(1), failedTransiently(), retried(1, 1)]]
    ] as const)("refuses a %s job as not failed", (_, events) =>
      expect(
        given(events)
          .when(retry("client", T0 + 65))
          .thenRejects("JobNotRetryable")
      ).toMatchObject({ reason: "not_failed" })
    )
    it("does not find an unknown, expired or overdue job", () => {
      given([]).when(retry()).thenRejects("JobNotFound")
      given([queued, expired])
        .when(retry("client", T0 + LIFETIME + 1))
        .thenRejects("JobNotFound")
      given([queued, started(1), failedTransiently()])
        .when(retry("client", T0 + LIFETIME))
        .thenRejects("JobNotFound")
    })
    it("a retried job starts again with the next attempt, then completes", () => {
      const history = [queued, started(1), failedTransiently(), retried(1, 1)]
      given(history)
        .when({ _tag: "StartJob", jobId, workerId: "w1", now: T0 + 70 })
        .then([started(2, T0 + 70)])
      given([...history, started(2, T0 + 70)])
        .when({ _tag: "ReportProgress", jobId, percent: 10, now: T0 + 71 })
        .then([{ _tag: "JobProgressed", v: 1, jobId, percent: 10, at: T0 + 71 }])
      given([...history, started(2, T0 + 70)])
        .when({ _tag: "CompleteJob", jobId, artifact, now: T0 + 80 })
        .then([{ _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 80 }])
    })
    it("names each retry's append by its number, and each try's failure apart", () => {
      expect(jobEventId(retried(1, 1))).not.toBe(jobEventId(retried(2, 2)))
      expect(jobEventId(failedTransiently(T0 + 30))).not.toBe(jobEventId(failedTransiently(T0 + 55)))
      expect(jobEventId({ _tag: "JobProgressed", v: 1, jobId, percent: 10, at: T0 + 20 })).not.toBe(
        jobEventId({ _tag: "JobProgressed", v: 1, jobId, percent: 10, at: T0 + 71 })
      )
    })
  })
})

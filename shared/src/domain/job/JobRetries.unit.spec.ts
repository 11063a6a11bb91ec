// Specifications of the automatic retries' reaction: given a job's events, when woken at a time, then these commands.
import { describe, expect, it } from "vitest"
import { jobFailed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"
import type { JobErrorCode, JobEvent } from "./JobEvent.ts"
import { evolveJob, type JobState } from "./JobState.ts"
import { type AutoRetrySettings, backoffBefore, mayAwaitRetry, type RetryReaction, retryReaction } from "./JobRetries.ts"

const jobId = "job_a"
const T0 = 1_000_000
const LIFETIME = 3_600_000
const FAILED_AT = T0 + 100
const settings: AutoRetrySettings = { maxRetries: 2, backoffMs: 10_000 }

const queued = jobQueued("prj_a", jobId, T0, { expiresAt: T0 + LIFETIME })
const failedWith = (code: JobErrorCode, at = FAILED_AT): JobEvent =>
  jobFailed(jobId, at, { code, message: "x", retryable: code === "download_failed" })
const retried = (retry: number, attempt: number, by: "automatic" | "client" = "automatic", at = FAILED_AT + 10_000): JobEvent => ({
  _tag: "JobRetried",
  v: 1,
  jobId,
  retry,
  attempt,
  by,
  at
})
const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: FAILED_AT }

const given = (events: ReadonlyArray<JobEvent>) => ({
  whenWokenAt: (now: number, trigger: "JobEnded" | "Reconcile" = "JobEnded") => ({
    then: (expected: ReadonlyArray<RetryReaction>) => {
      const state = events.reduce<JobState>(evolveJob, null)
      expect(retryReaction(settings)(state, { _tag: trigger, now })).toEqual(expected)
    }
  })
})

describe("automatic retries (react)", () => {
  it("waits out the backoff after a retryable failure", () =>
    given([queued, jobStarted(jobId, T0 + 10), failedWith("download_failed")])
      .whenWokenAt(FAILED_AT + 1)
      .then([{ _tag: "WaitUntil", at: FAILED_AT + 10_000 }]))
  it("retries once the backoff passed, as retry 1; a reconcile finds the same", () => {
    const events = [queued, jobStarted(jobId, T0 + 10), failedWith("download_failed")]
    given(events)
      .whenWokenAt(FAILED_AT + 10_000)
      .then([{ _tag: "Retry", retry: 1 }])
    given(events)
      .whenWokenAt(FAILED_AT + 60_000, "Reconcile")
      .then([{ _tag: "Retry", retry: 1 }])
  })
  it("waits three times longer before the second retry", () => {
    const secondFailure = FAILED_AT + 20_000
    const events = [
      queued,
      jobStarted(jobId, T0 + 10),
      failedWith("download_failed"),
      retried(1, 1),
      jobStarted(jobId, FAILED_AT + 10_001, { attempt: 2 }),
      failedWith("download_failed", secondFailure)
    ]
    given(events)
      .whenWokenAt(secondFailure + 29_999)
      .then([{ _tag: "WaitUntil", at: secondFailure + 30_000 }])
    given(events)
      .whenWokenAt(secondFailure + 30_000)
      .then([{ _tag: "Retry", retry: 2 }])
    expect([1, 2, 3].map((n) => backoffBefore(settings, n))).toEqual([10_000, 30_000, 90_000])
  })
  it("gives up after JOB_AUTO_RETRIES retries, a client's counted among them", () =>
    given([
      queued,
      failedWith("download_failed"),
      retried(1, 0, "client"),
      failedWith("download_failed", FAILED_AT + 11_000),
      retried(2, 0),
      failedWith("download_failed", FAILED_AT + 50_000)
    ])
      .whenWokenAt(FAILED_AT + 500_000)
      .then([]))
  it.each(["media_unavailable", "unsupported_platform", "format_unavailable", "file_too_large", "url_not_allowed"] as const)(
    "never retries a failure that is not retryable (%s)",
    (code) =>
      given([queued, jobStarted(jobId, T0 + 10), failedWith(code)])
        .whenWokenAt(FAILED_AT + 60_000)
        .then([])
  )
  it("never retries a canceled job, a completed one or one past its lifetime", () => {
    given([queued, jobStarted(jobId, T0 + 10), canceled])
      .whenWokenAt(FAILED_AT + 60_000)
      .then([])
    given([queued, jobStarted(jobId, T0 + 10), failedWith("download_failed")])
      .whenWokenAt(T0 + LIFETIME)
      .then([])
  })
  it("does not schedule a retry that would fall after the job's lifetime", () =>
    given([queued, failedWith("download_failed", T0 + LIFETIME - 5_000)])
      .whenWokenAt(T0 + LIFETIME - 4_000)
      .then([]))
  it("hands its retry off again while the job has not run since (the step after RetryJob may have been cut off)", () => {
    const events = [queued, jobStarted(jobId, T0 + 10), failedWith("download_failed"), retried(1, 1)]
    given(events)
      .whenWokenAt(FAILED_AT + 10_500)
      .then([{ _tag: "HandOff", retry: 1 }])
    given([...events, jobStarted(jobId, FAILED_AT + 10_600, { attempt: 2 })])
      .whenWokenAt(FAILED_AT + 10_700)
      .then([])
  })
  it("hands a client's retry off again too while it has not run (the request's hand-off may have failed)", () =>
    given([queued, jobStarted(jobId, T0 + 10), failedWith("download_failed"), retried(1, 1, "client")])
      .whenWokenAt(FAILED_AT + 10_500, "Reconcile")
      .then([{ _tag: "HandOff", retry: 1 }]))
  it("hands a new job off again while it has not run (the gateway may have died before sending its message)", () => {
    given([queued])
      .whenWokenAt(T0 + 60_000, "Reconcile")
      .then([{ _tag: "HandOff", retry: 0 }])
    given([queued, jobStarted(jobId, T0 + 10)])
      .whenWokenAt(T0 + 60_000, "Reconcile")
      .then([])
  })
  it("does nothing with JOB_AUTO_RETRIES=0", () => {
    const state = [queued, failedWith("download_failed")].reduce<JobState>(evolveJob, null)
    expect(retryReaction({ ...settings, maxRetries: 0 })(state, { _tag: "JobEnded", now: FAILED_AT + 60_000 })).toEqual([])
  })
})

describe("what the reconcile looks at", () => {
  it("a job last failed, retried or queued may still owe the retries something; a started or canceled one does not", () => {
    expect(mayAwaitRetry(failedWith("download_failed"))).toBe(true)
    expect(mayAwaitRetry(retried(1, 1))).toBe(true)
    expect(mayAwaitRetry(queued)).toBe(true)
    expect(mayAwaitRetry(jobStarted(jobId, FAILED_AT))).toBe(false)
    expect(mayAwaitRetry(canceled)).toBe(false)
  })
})

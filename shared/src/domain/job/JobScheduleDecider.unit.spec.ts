// Specifications of a scheduled job's decisions: schedule, probe results, begin, give-up and cancel while it waits, and
// a queued download whose run found its stream not begun (AwaitStart).
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { parseFormatId } from "../media/FormatId.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobEvent } from "./JobEvent.ts"
import { LIVE_NOT_STARTED_ERROR, type LiveWaitSettings, MAX_FAILED_PROBES } from "./JobSchedule.ts"
import { earlierTryRelease, slotReleaseOf } from "./JobSlot.ts"
import { clientRetriesOf, retriesOf, runsOfCurrentTry } from "./JobState.ts"

const given = DeciderSpecification.for(JobDecider)
const jobId = "job_live"
const T0 = 1_000_000_000
const MIN = 60_000
const HOUR = 3_600_000
const LIFETIME = HOUR
const live: LiveWaitSettings = { waitMaxMs: 7 * 24 * HOUR, probeMinMs: MIN, probeMaxMs: HOUR }
const source = { url: "https://live.example/stream", mediaId: "med_live" }
const format = parseFormatId("video_best")

const schedule = (startsAt: number | null) =>
  ({
    _tag: "ScheduleJob",
    jobId,
    projectId: "prj_a",
    platform: "generic",
    format,
    source,
    now: T0,
    lifetimeMs: LIFETIME,
    startsAt,
    live
  }) as const

/** Scheduled at T0 for a stream announced 3 hours later: first probe in an hour (the clamp's ceiling). */
const scheduled: JobEvent = {
  _tag: "JobScheduled",
  v: 1,
  jobId,
  projectId: "prj_a",
  platform: "generic",
  format,
  source,
  createdAt: T0,
  expiresAt: T0 + live.waitMaxMs + LIFETIME,
  startsAt: T0 + 3 * HOUR,
  waitUntil: T0 + live.waitMaxMs,
  nextProbeAt: T0 + HOUR
}
const probe = (outcome: "live" | "not_live" | "failed", now: number, startsAt?: number) =>
  ({ _tag: "RecordLiveProbe", jobId, outcome, now, live, ...(startsAt === undefined ? {} : { startsAt }) }) as const
const probed = (outcome: "live" | "not_live" | "failed", at: number, failedProbes: number, nextProbeAt: number): JobEvent => ({
  _tag: "JobLiveProbed",
  v: 1,
  jobId,
  outcome,
  failedProbes,
  nextProbeAt,
  at
})
const foundLive = probed("live", T0 + 3 * HOUR, 0, T0 + 3 * HOUR)
const began: JobEvent = { _tag: "JobLiveBegan", v: 1, jobId, claim: "c1", expiresAt: T0 + 3 * HOUR + 5 + LIFETIME, at: T0 + 3 * HOUR + 5 }
const gaveUp = (at: number): JobEvent => ({ _tag: "JobFailed", v: 1, jobId, error: LIVE_NOT_STARTED_ERROR, at })

describe("a scheduled job", () => {
  describe("ScheduleJob", () => {
    it("schedules the job, its first probe an hour ahead for a stream hours away", () =>
      given([])
        .when(schedule(T0 + 3 * HOUR))
        .then([scheduled]))
    it("probes a minute after a schedule whose start is past or unknown (the clamp's floor)", () => {
      given([])
        .when(schedule(null))
        .then([{ ...scheduled, startsAt: T0, nextProbeAt: T0 + MIN } as JobEvent])
    })
    it("holds no slot while scheduled", () => expect(slotReleaseOf(foldEvents(JobDecider, [scheduled]))).toBeNull())
    it("refuses scheduling the same job twice", () => given([scheduled]).when(schedule(T0)).thenRejects("JobAlreadyExists"))
  })

  describe("RecordLiveProbe", () => {
    it("a probe that finds it not yet live plans the next one by the clamp", () =>
      given([scheduled])
        .when(probe("not_live", T0 + HOUR))
        .then([probed("not_live", T0 + HOUR, 0, T0 + 2 * HOUR)]))
    it("a probe past the announced start looks again a minute later", () =>
      given([scheduled])
        .when(probe("not_live", T0 + 4 * HOUR))
        .then([probed("not_live", T0 + 4 * HOUR, 0, T0 + 4 * HOUR + MIN)]))
    it("a probe that finds it live marks it live, due at once", () =>
      given([scheduled])
        .when(probe("live", T0 + 3 * HOUR))
        .then([foundLive]))
    it("counts failed probes in a row, and an answer resets them", () => {
      given([scheduled, probed("failed", T0 + HOUR, 1, T0 + 2 * HOUR)])
        .when(probe("failed", T0 + 2 * HOUR))
        .then([probed("failed", T0 + 2 * HOUR, 2, T0 + 2 * HOUR + HOUR)])
      given([scheduled, probed("failed", T0 + HOUR, 1, T0 + 2 * HOUR)])
        .when(probe("not_live", T0 + 2 * HOUR))
        .then([probed("not_live", T0 + 2 * HOUR, 0, T0 + 3 * HOUR)])
    })
    it(`gives up with live_not_started on the ${MAX_FAILED_PROBES}th failed probe in a row`, () =>
      given([scheduled, probed("failed", T0 + HOUR, MAX_FAILED_PROBES - 1, T0 + 2 * HOUR)])
        .when(probe("failed", T0 + 2 * HOUR))
        .then([gaveUp(T0 + 2 * HOUR)]))
    it("gives up when a probe finds it not live past the wait", () =>
      given([scheduled])
        .when(probe("not_live", T0 + live.waitMaxMs))
        .then([gaveUp(T0 + live.waitMaxMs)]))
    it("never plans a probe after the wait's end", () =>
      given([scheduled])
        .when(probe("not_live", T0 + live.waitMaxMs - MIN / 2))
        .then([probed("not_live", T0 + live.waitMaxMs - MIN / 2, 0, T0 + live.waitMaxMs)]))
    it("records the start a probe reads when the premiere moved", () =>
      given([scheduled])
        .when(probe("not_live", T0 + HOUR, T0 + HOUR + 5 * MIN))
        .then([{ ...probed("not_live", T0 + HOUR, 0, T0 + HOUR + 5 * MIN), startsAt: T0 + HOUR + 5 * MIN } as JobEvent]))
    it("records nothing once the job began or was canceled (a late probe)", () => {
      given([scheduled, foundLive])
        .when(probe("not_live", T0 + 3 * HOUR + 1))
        .thenNothing()
      given([scheduled, foundLive, began])
        .when(probe("failed", T0 + 4 * HOUR))
        .thenNothing()
      given([scheduled, { _tag: "JobCanceled", v: 1, jobId, at: T0 + 10 }])
        .when(probe("live", T0 + HOUR))
        .thenNothing()
    })
  })

  describe("BeginLiveJob", () => {
    const begin = { _tag: "BeginLiveJob", jobId, now: T0 + 3 * HOUR + 5, lifetimeMs: LIFETIME, claim: "c1" } as const
    it("queues the job with its claim and a new lifetime from now", () => {
      given([scheduled, foundLive]).when(begin).then([began])
      const state = foldEvents(JobDecider, [scheduled, foundLive, began])
      expect(state?.status).toBe("queued")
      expect(state?.expiresAt).toBe(T0 + 3 * HOUR + 5 + LIFETIME)
      expect(state?.schedule?.startsAt).toBe(T0 + 3 * HOUR)
    })
    it("refuses a job that is no longer scheduled (it began, or was canceled)", () => {
      given([scheduled, foundLive, began]).when(begin).thenRejects("InvalidJobTransition")
      given([scheduled, { _tag: "JobCanceled", v: 1, jobId, at: T0 + 10 }])
        .when(begin)
        .thenRejects("InvalidJobTransition")
    })
    it("a worker cannot start a scheduled job (it has no work message)", () =>
      given([scheduled])
        .when({ _tag: "StartJob", jobId, workerId: "w1", now: T0 + 5 })
        .thenRejects("InvalidJobTransition"))
  })

  describe("GiveUpWaiting", () => {
    it("fails the job with live_not_started once the wait ran out", () =>
      given([scheduled])
        .when({ _tag: "GiveUpWaiting", jobId, now: T0 + live.waitMaxMs })
        .then([gaveUp(T0 + live.waitMaxMs)]))
    it("does nothing before the wait's end, or for a job found live (it waits for a slot)", () => {
      given([scheduled])
        .when({ _tag: "GiveUpWaiting", jobId, now: T0 + live.waitMaxMs - 1 })
        .thenNothing()
      given([scheduled, foundLive])
        .when({ _tag: "GiveUpWaiting", jobId, now: T0 + live.waitMaxMs })
        .thenNothing()
    })
  })

  describe("CancelJob", () => {
    it("cancels a scheduled job; it had no slot to free", () => {
      const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 10 }
      given([scheduled])
        .when({ _tag: "CancelJob", jobId, now: T0 + 10 })
        .then([canceled])
      expect(slotReleaseOf(foldEvents(JobDecider, [scheduled, canceled]))).toBe("canceled")
    })
  })

  describe("AwaitStart (a download by URL whose run found the stream not begun)", () => {
    const queued: JobEvent = {
      _tag: "JobQueued",
      v: 1,
      jobId,
      projectId: "prj_a",
      platform: "generic",
      format,
      source: { url: "https://live.example/stream", mediaId: null },
      createdAt: T0,
      expiresAt: T0 + LIFETIME,
      claim: "c0"
    }
    const started: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w1", work: 7, at: T0 + 5 }
    const awaitStart = (startsAt: number | null, attempt = 1) =>
      ({ _tag: "AwaitStart", jobId, attempt, startsAt, now: T0 + 10, lifetimeMs: LIFETIME, live }) as const
    const awaiting: JobEvent = {
      _tag: "JobAwaitingStart",
      v: 1,
      jobId,
      attempt: 1,
      retry: 1,
      startsAt: T0 + 3 * HOUR,
      waitUntil: T0 + 10 + live.waitMaxMs,
      nextProbeAt: T0 + 10 + HOUR,
      expiresAt: T0 + 10 + live.waitMaxMs + LIFETIME,
      at: T0 + 10
    }

    it("the job waits as a scheduled one, its next try the one the stream's start begins", () => {
      given([queued, started])
        .when(awaitStart(T0 + 3 * HOUR))
        .then([awaiting])
      const state = foldEvents(JobDecider, [queued, started, awaiting])
      expect(state).toMatchObject({ status: "scheduled", progress: 0, expiresAt: T0 + 10 + live.waitMaxMs + LIFETIME })
      expect(state?.schedule).toEqual({
        startsAt: T0 + 3 * HOUR,
        waitUntil: T0 + 10 + live.waitMaxMs,
        nextProbeAt: T0 + 10 + HOUR,
        failedProbes: 0,
        afterAttempt: 1
      })
      // The try that ran is over: it holds no slot the job's state would keep, and its own is freed as unused.
      expect(state?.claim).toBeUndefined()
      expect(slotReleaseOf(state)).toBeNull()
      expect(retriesOf(state)).toBe(1)
      expect(runsOfCurrentTry(state)).toBe(0)
      expect(earlierTryRelease(state, 0)).toBe("unused")
      // A wait is no retry: clients see none, and the automatic retries' budget is whole.
      expect(clientRetriesOf(state)).toBe(0)
    })
    it("probes a minute later when the media does not say when it begins", () =>
      given([queued, started])
        .when(awaitStart(null))
        .then([{ ...awaiting, startsAt: T0 + 10, nextProbeAt: T0 + 10 + MIN } as JobEvent]))
    it("begins its own try once found live; canceled while it waits, it has no slot to free", () => {
      const live_ = probed("live", T0 + 3 * HOUR, 0, T0 + 3 * HOUR)
      given([queued, started, awaiting, live_])
        .when({ _tag: "BeginLiveJob", jobId, now: T0 + 3 * HOUR + 5, lifetimeMs: LIFETIME, claim: "c1" })
        .then([{ _tag: "JobLiveBegan", v: 1, jobId, claim: "c1", expiresAt: T0 + 3 * HOUR + 5 + LIFETIME, at: T0 + 3 * HOUR + 5 }])
      // The first try's message, redelivered, runs nothing: it is another try's.
      given([queued, started, awaiting])
        .when({ _tag: "StartJob", jobId, workerId: "w2", retry: 0, work: 7, now: T0 + 20 })
        .thenRejects("RunNotCurrent")
      const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 20 }
      expect(slotReleaseOf(foldEvents(JobDecider, [queued, started, awaiting, canceled]))).toBe("canceled")
    })
    it("a job that waited once and whose run still finds the stream not begun fails live_not_started", () => {
      const live_ = probed("live", T0 + 3 * HOUR, 0, T0 + 3 * HOUR)
      const began_: JobEvent = { _tag: "JobLiveBegan", v: 1, jobId, claim: "c1", expiresAt: T0 + 4 * HOUR, at: T0 + 3 * HOUR }
      const again: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 2, workerId: "w2", work: 9, at: T0 + 3 * HOUR + 1 }
      const outcome = decideOnce([queued, started, awaiting, live_, began_, again], { ...awaitStart(null, 2), now: T0 + 3 * HOUR + 2 })
      expect(outcome).toMatchObject([{ _tag: "JobFailed", error: { code: "live_not_started", retryable: false } }])
      // A job scheduled from the start waits once too.
      const fromStart = decideOnce([scheduled, foundLive, began, { ...again, attempt: 1 }], { ...awaitStart(null), now: T0 + 4 * HOUR })
      expect(fromStart).toMatchObject([{ _tag: "JobFailed", error: { code: "live_not_started" } }])
    })
    it("a run a later one took over decides nothing; a job that ended meanwhile stays as it is", () => {
      given([queued, started]).when(awaitStart(null, 2)).thenRejects("RunNotCurrent")
      given([queued, started, { _tag: "JobCanceled", v: 1, jobId, at: T0 + 8 }])
        .when(awaitStart(null))
        .thenNothing()
      given([queued]).when(awaitStart(null, 0)).thenRejects("InvalidJobTransition")
    })
  })
})

/** The events a command decides on the state the given events fold to (failing the spec on a rejection). */
const decideOnce = (events: ReadonlyArray<JobEvent>, command: Parameters<typeof JobDecider.decide>[0]) => {
  const decided = JobDecider.decide(command, foldEvents(JobDecider, events))
  if (decided._tag === "Failure") throw new Error(`rejected: ${decided.failure._tag}`)
  return decided.success
}

// Specifications of a scheduled job's decisions: schedule, probe results, begin, give-up and cancel while it waits.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { parseFormatId } from "../media/FormatId.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobEvent } from "./JobEvent.ts"
import { LIVE_NOT_STARTED_ERROR, type LiveWaitSettings, MAX_FAILED_PROBES } from "./JobSchedule.ts"
import { slotReleaseOf } from "./JobSlot.ts"

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
})

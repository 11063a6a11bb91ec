// The probe interval's clamp and the live-wait reactor's reaction from a scheduled job's state.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { parseFormatId } from "../media/FormatId.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobEvent } from "./JobEvent.ts"
import { liveWaitReaction, type LiveWaitSettings, probeDelay } from "./JobSchedule.ts"

const MIN = 60_000
const HOUR = 3_600_000
const settings: LiveWaitSettings = { waitMaxMs: 7 * 24 * HOUR, probeMinMs: MIN, probeMaxMs: HOUR }

describe("probeDelay", () => {
  it("waits until the announced start, between a minute and an hour", () => {
    expect(probeDelay(10 * MIN, 0, settings)).toBe(10 * MIN)
    expect(probeDelay(5 * HOUR, 0, settings)).toBe(HOUR)
    expect(probeDelay(10_000, 0, settings)).toBe(MIN)
    expect(probeDelay(0, 2 * HOUR, settings)).toBe(MIN)
  })
  it("follows a lower floor given for tests", () => expect(probeDelay(0, 0, { ...settings, probeMinMs: 500 })).toBe(500))
})

describe("liveWaitReaction", () => {
  const scheduled: JobEvent = {
    _tag: "JobScheduled",
    v: 1,
    jobId: "job_a",
    projectId: "prj_a",
    platform: "generic",
    format: parseFormatId("video_best"),
    source: { url: "https://live.example/s", mediaId: null },
    createdAt: 0,
    expiresAt: 2 * HOUR,
    startsAt: 30 * MIN,
    waitUntil: HOUR,
    nextProbeAt: 30 * MIN
  }
  const stateOf = (...events: ReadonlyArray<JobEvent>) => foldEvents(JobDecider, events)
  const at = (now: number) => ({ _tag: "Reconcile", now }) as const

  it("waits until the next probe is due, then probes", () => {
    expect(liveWaitReaction(stateOf(scheduled), at(MIN))).toEqual([{ _tag: "WaitUntil", at: 30 * MIN }])
    expect(liveWaitReaction(stateOf(scheduled), at(30 * MIN))).toEqual([{ _tag: "Probe" }])
  })
  it("gives up once the wait ran out", () => expect(liveWaitReaction(stateOf(scheduled), at(HOUR))).toEqual([{ _tag: "GiveUp" }]))
  it("takes a slot once a probe found the stream live, however long the slot takes", () => {
    const live: JobEvent = {
      _tag: "JobLiveProbed",
      v: 1,
      jobId: "job_a",
      outcome: "live",
      failedProbes: 0,
      nextProbeAt: 40 * MIN,
      at: 40 * MIN
    }
    expect(liveWaitReaction(stateOf(scheduled, live), at(2 * HOUR - 1))).toEqual([{ _tag: "Begin" }])
  })
  it("has nothing to do for a job that is not scheduled", () => {
    expect(liveWaitReaction(null, at(0))).toEqual([])
    expect(liveWaitReaction(stateOf(scheduled, { _tag: "JobCanceled", v: 1, jobId: "job_a", at: 5 }), at(HOUR))).toEqual([])
  })
})

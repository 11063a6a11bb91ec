// The job's one state: the decider and the read-model projection fold the same way, and readers tell canceled apart.
import { describe, expect, it } from "vitest"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import { JobDecider } from "../../domain/job/JobDecider.ts"
import { CANCELED_ERROR, type JobEvent } from "../../domain/job/JobEvent.ts"
import { hasEnded, jobStatus } from "../../domain/job/JobState.ts"
import { foldJobEvents } from "./JobStates.ts"

const jobId = "job_a"
const queued = jobQueued("prj_a", jobId, 100, { expiresAt: 10_100 })
const started: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: 200 }
const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: 300 }
const stored = (events: ReadonlyArray<JobEvent>, from = 1) => events.map((event, index) => ({ event, seq: from + index }))

describe("one job state", () => {
  it("given a snapshot and the events after it, equals folding every event from the start", () => {
    const all = stored([queued, started, canceled])
    const snapshot = foldJobEvents(null, all.slice(0, 2))
    expect(foldJobEvents(snapshot, all.slice(2))).toEqual(foldJobEvents(null, all))
  })

  it("the decider's state is the projection's document, but for the sequence it has not seen", () => {
    const events = [queued, started]
    const decided = events.reduce(JobDecider.evolve, JobDecider.initialState())
    expect({ ...decided, lastSeq: 2 }).toEqual(foldJobEvents(null, stored(events)))
  })

  it("a canceled job reads as canceled (answered as failed with the cancel's error) and has ended", () => {
    const state = foldJobEvents(null, stored([queued, started, canceled]))
    expect(state?.status).toBe("failed")
    expect(state?.error).toEqual(CANCELED_ERROR)
    expect(jobStatus(state)).toBe("canceled")
    expect(hasEnded(state)).toBe(true)
  })

  it("nothing queued is none, and a running job has not ended", () => {
    expect(jobStatus(null)).toBe("none")
    expect(hasEnded(foldJobEvents(null, stored([queued, started])))).toBe(false)
  })
})

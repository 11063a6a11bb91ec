// Given a job's events, when a releaser asks whether the job's slot may be freed, then the reason or "held".
import { describe, expect, it } from "vitest"
import { jobArtifact, jobCompleted, jobExpired, jobFailed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"
import type { JobEvent } from "./JobEvent.ts"
import { evolveJob } from "./JobState.ts"
import { slotReleaseOf } from "./JobSlot.ts"

const T0 = 1_000_000
const projectId = "prj_a"
const jobId = "job_a"
const queued = jobQueued(projectId, jobId, T0)
const started = jobStarted(jobId, T0 + 10)
const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 20 }

const given = (...events: ReadonlyArray<JobEvent>) => slotReleaseOf(events.reduce(evolveJob, null))

describe("slotReleaseOf", () => {
  it("a job not queued, queued or processing holds its slot", () => {
    expect(given()).toBeNull()
    expect(given(queued)).toBeNull()
    expect(given(queued, started)).toBeNull()
  })
  it("a job canceled before any run started frees its slot at once", () => {
    expect(given(queued, canceled)).toBe("canceled")
  })
  it("a job canceled after a run started keeps its slot: the run's worker frees it once the run has stopped", () => {
    expect(given(queued, started, canceled)).toBeNull()
  })
  it("a job that completed, failed or expired frees its slot", () => {
    expect(given(queued, started, jobCompleted(projectId, jobId, T0 + 30, jobArtifact(projectId, jobId, T0)))).toBe("completed")
    expect(given(queued, started, jobFailed(jobId, T0 + 30, { code: "download_failed", message: "x", retryable: true }))).toBe("failed")
    expect(given(queued, jobExpired(jobId, T0 + 30))).toBe("expired")
  })
})

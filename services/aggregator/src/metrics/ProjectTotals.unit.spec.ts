// Per-project totals count each job once, as it ends, from its states around the event.
import { describe, expect, it } from "vitest"
import { evolveJob, type JobState } from "@mds/shared/domain/job/JobState"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { countJobEnd, emptyProjectTotals } from "./ProjectTotals.ts"
import { jobArtifact, jobCompleted, jobFailed, jobQueued } from "../../../../test/support/JobEvents.ts"

const fold = (totals: ReturnType<typeof emptyProjectTotals>, events: ReadonlyArray<JobEvent>) =>
  events.reduce<JobState>((before, event) => {
    const after = evolveJob(before, event)
    countJobEnd(totals, before, after)
    return after
  }, null)

describe("countJobEnd", () => {
  it("counts a completed job and its bytes once, however many events follow", () => {
    const totals = emptyProjectTotals()
    const done = jobCompleted("prj_a", "job_1", 3, jobArtifact("prj_a", "job_1", 3, { sizeBytes: 40 }))
    fold(totals, [jobQueued("prj_a", "job_1", 1), done, done, jobFailed("job_1", 4)])
    expect(totals.ended.get("prj_a")).toEqual({ completed: 1, failed: 0, canceled: 0, expired: 0 })
    expect(totals.bytes.get("prj_a")).toBe(40)
  })
  it("a canceled job counts as canceled, a failure as failed", () => {
    const totals = emptyProjectTotals()
    fold(totals, [jobQueued("prj_b", "job_1", 1), { _tag: "JobCanceled", v: 1, jobId: "job_1", at: 2 }])
    fold(totals, [jobQueued("prj_b", "job_2", 1), jobFailed("job_2", 2)])
    expect(totals.ended.get("prj_b")).toEqual({ completed: 0, failed: 1, canceled: 1, expired: 0 })
    expect(totals.bytes.get("prj_b")).toBeUndefined()
  })
})

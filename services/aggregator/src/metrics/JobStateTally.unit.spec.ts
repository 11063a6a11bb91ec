// Given job events, then the counts the mds_jobs gauge reports.
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { describe, expect, it } from "vitest"
import { applyToTally, countTally, type JobStateTally } from "./JobStateTally.ts"
import { jobFailed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"

const queued = (jobId: string, expiresAt = 1_000): JobEvent => jobQueued("prj_a", jobId, 0, { expiresAt })
const started = (jobId: string): JobEvent => jobStarted(jobId, 1)
const failed = (jobId: string): JobEvent => jobFailed(jobId, 2, { code: "download_failed", message: "x", retryable: false })

describe("JobStateTally", () => {
  it("counts each job once, in its latest state, while it lives", () => {
    const tally: JobStateTally = new Map()
    applyToTally(tally, "a", queued("a"))
    applyToTally(tally, "b", queued("b"))
    applyToTally(tally, "c", queued("c", 50))
    applyToTally(tally, "b", started("b"))
    applyToTally(tally, "b", { _tag: "JobProgressed", v: 1, jobId: "b", percent: 10, at: 2 })
    applyToTally(tally, "c", started("c"))
    applyToTally(tally, "c", failed("c"))
    expect(countTally(tally, 10)).toEqual({ scheduled: 0, queued: 1, processing: 1, completed: 0, failed: 1 })
    expect(countTally(tally, 100)).toEqual({ scheduled: 0, queued: 1, processing: 1, completed: 0, failed: 0 })
  })

  it("an expired job leaves the tally; a late start does not revive a failed job", () => {
    const tally: JobStateTally = new Map()
    applyToTally(tally, "a", queued("a"))
    applyToTally(tally, "a", failed("a"))
    applyToTally(tally, "a", started("a"))
    expect(countTally(tally, 10)).toEqual({ scheduled: 0, queued: 0, processing: 0, completed: 0, failed: 1 })
    applyToTally(tally, "b", queued("b"))
    applyToTally(tally, "b", { _tag: "JobExpired", v: 1, jobId: "b", at: 3 })
    expect(countTally(tally, 10)).toEqual({ scheduled: 0, queued: 0, processing: 0, completed: 0, failed: 1 })
  })

  it("a canceled job counts as failed, as the API answers it", () => {
    const tally: JobStateTally = new Map()
    applyToTally(tally, "a", queued("a"))
    applyToTally(tally, "a", { _tag: "JobCanceled", v: 1, jobId: "a", at: 2 })
    expect(countTally(tally, 10)).toEqual({ scheduled: 0, queued: 0, processing: 0, completed: 0, failed: 1 })
  })
})

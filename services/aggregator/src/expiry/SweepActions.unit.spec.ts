// Given a job's folded view and what was swept already, when the clock reads `now`, then the sweeper's actions.
import { describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { dueSweepActions, isFullySwept, nothingSwept } from "./SweepActions.ts"
import { jobArtifact, jobCompleted, jobExpired, jobFailed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"

const T0 = 1_000_000
const LIFETIME = 3_600_000
const GRACE = 60_000
const jobId = "job_a"
const queued: JobEvent = jobQueued("prj_a", jobId, T0, { expiresAt: T0 + LIFETIME })
const started: JobEvent = jobStarted(jobId, T0 + 10)
const artifact = jobArtifact("prj_a", jobId, T0, {
  key: "jobs/prj_a/job_a/a.mp4",
  filename: "a.mp4",
  sizeBytes: 1,
  availableUntil: T0 + 2 * LIFETIME
})
const completed: JobEvent = jobCompleted("prj_a", jobId, T0 + LIFETIME / 2, artifact)
const failed: JobEvent = jobFailed(jobId, T0 + 20, { code: "download_failed", message: "x", retryable: true })
const expired: JobEvent = jobExpired(jobId, T0 + LIFETIME)

const given = (...events: ReadonlyArray<JobEvent>): JobView => {
  const view = events.reduce<JobView | null>((doc, event, i) => evolveJobView(doc, event, i + 1), null)
  if (view === null) throw new Error("no view")
  return view
}
const at = (view: JobView, now: number, progress = nothingSwept) => dueSweepActions(view, progress, now, GRACE).map((a) => a._tag)

describe("dueSweepActions", () => {
  it("a queued or processing job inside its lifetime: nothing", () => {
    expect(at(given(queued), T0 + LIFETIME - 1)).toEqual([])
    expect(at(given(queued, started), T0 + LIFETIME - 1)).toEqual([])
  })
  it("a queued or processing job at the end of its lifetime: expire it (nothing else until JobExpired is seen)", () => {
    expect(at(given(queued), T0 + LIFETIME)).toEqual(["ExpireJob"])
    expect(at(given(queued, started), T0 + 2 * LIFETIME)).toEqual(["ExpireJob"])
  })
  it("an expired job: its document goes after the grace period", () => {
    expect(at(given(queued, expired), T0 + LIFETIME + GRACE - 1)).toEqual([])
    expect(at(given(queued, expired), T0 + LIFETIME + GRACE)).toEqual(["RemoveDocument"])
  })
  it("a completed job: the document goes after the job's lifetime, the file after its link's", () => {
    const view = given(queued, started, completed)
    expect(at(view, T0 + LIFETIME + GRACE)).toEqual(["RemoveDocument"])
    expect(at(view, T0 + 2 * LIFETIME, { artifactRemoved: false, documentRemoved: true })).toEqual(["RemoveArtifact"])
    const actions = dueSweepActions(view, nothingSwept, T0 + 2 * LIFETIME, GRACE)
    expect(actions).toEqual([{ _tag: "RemoveArtifact", key: artifact.key }, { _tag: "RemoveDocument" }])
  })
  it("what was done is not done again", () => {
    expect(at(given(queued, started, completed), T0 + 3 * LIFETIME, { artifactRemoved: true, documentRemoved: true })).toEqual([])
    expect(at(given(queued, failed), T0 + 3 * LIFETIME, { artifactRemoved: false, documentRemoved: true })).toEqual([])
  })
})

describe("isFullySwept", () => {
  it("only finished jobs whose document (and file, if any) are gone", () => {
    const done = { artifactRemoved: true, documentRemoved: true }
    expect(isFullySwept(given(queued), done)).toBe(false)
    expect(isFullySwept(given(queued, failed), { artifactRemoved: false, documentRemoved: true })).toBe(true)
    expect(isFullySwept(given(queued, started, completed), { artifactRemoved: false, documentRemoved: true })).toBe(false)
    expect(isFullySwept(given(queued, started, completed), done)).toBe(true)
  })
})

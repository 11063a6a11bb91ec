// Given a job's events (or a thumbnail) and what was swept already, when the sweeper's clock reads `now`, then its actions.
import { describe, expect, it } from "vitest"
import { ReactionSpecification } from "@mds/shared/domain/ReactionSpecification"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { isSweptForGood, nothingSwept, react, type SweepProgress, type SweepState, type SweepTrigger } from "./SweepActions.ts"
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
const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 20 }
const expired: JobEvent = jobExpired(jobId, T0 + LIFETIME)

const viewOf = (events: ReadonlyArray<JobEvent>): JobView => {
  const view = events.reduce<JobView | null>((doc, event, i) => evolveJobView(doc, event, i + 1), null)
  if (view === null) throw new Error("no view")
  return view
}
const job = (events: ReadonlyArray<JobEvent>, progress: SweepProgress = nothingSwept): SweepState => ({
  _tag: "Job",
  job: viewOf(events),
  progress,
  graceMs: GRACE
})
const thumbnail = (removed = false): SweepState => ({ _tag: "Thumbnail", key: "thumbnails/med_a.jpg", expiresAt: T0 + LIFETIME, removed })
const given = ReactionSpecification.for(react)
const at = (now: number): SweepTrigger => ({ _tag: "Sweep", now })

describe("the expiry sweeper's reaction", () => {
  it("a queued or processing job inside its lifetime: nothing", () => {
    given(job([queued]))
      .when(at(T0 + LIFETIME - 1))
      .thenNothing()
    given(job([queued, started]))
      .when(at(T0 + LIFETIME - 1))
      .thenNothing()
  })

  it("a queued or processing job at the end of its lifetime: expire it (nothing else until JobExpired is seen)", () => {
    given(job([queued]))
      .when(at(T0 + LIFETIME))
      .then([{ _tag: "ExpireJob" }])
    given(job([queued, started]))
      .when(at(T0 + 2 * LIFETIME))
      .then([{ _tag: "ExpireJob" }])
  })

  it("an expired job: its document goes after the grace period", () => {
    given(job([queued, expired]))
      .when(at(T0 + LIFETIME + GRACE - 1))
      .thenNothing()
    given(job([queued, expired]))
      .when(at(T0 + LIFETIME + GRACE))
      .then([{ _tag: "RemoveDocument" }])
  })

  it("a canceled job is not expired again: only its document goes", () => {
    given(job([queued, canceled]))
      .when(at(T0 + LIFETIME))
      .thenNothing()
    given(job([queued, canceled]))
      .when(at(T0 + LIFETIME + GRACE))
      .then([{ _tag: "RemoveDocument" }])
  })

  it("a completed job: the document goes after the job's lifetime, the file after its link's", () => {
    given(job([queued, started, completed]))
      .when(at(T0 + LIFETIME + GRACE))
      .then([{ _tag: "RemoveDocument" }])
    given(job([queued, started, completed], { artifactRemoved: false, documentRemoved: true }))
      .when(at(T0 + 2 * LIFETIME))
      .then([{ _tag: "RemoveArtifact", key: artifact.key }])
    given(job([queued, started, completed]))
      .when(at(T0 + 2 * LIFETIME))
      .then([{ _tag: "RemoveArtifact", key: artifact.key }, { _tag: "RemoveDocument" }])
  })

  it("what was done is not done again", () => {
    given(job([queued, started, completed], { artifactRemoved: true, documentRemoved: true }))
      .when(at(T0 + 3 * LIFETIME))
      .thenNothing()
    given(job([queued, failed], { artifactRemoved: false, documentRemoved: true }))
      .when(at(T0 + 3 * LIFETIME))
      .thenNothing()
    given(thumbnail(true))
      .when(at(T0 + 3 * LIFETIME))
      .thenNothing()
  })

  it("a generated thumbnail goes when its media expires", () => {
    given(thumbnail())
      .when(at(T0 + LIFETIME - 1))
      .thenNothing()
    given(thumbnail())
      .when(at(T0 + LIFETIME))
      .then([{ _tag: "RemoveThumbnail", key: "thumbnails/med_a.jpg" }])
  })
})

describe("isSweptForGood", () => {
  it("only ended jobs whose document (and file, if any) are gone, and removed thumbnails", () => {
    const done = { artifactRemoved: true, documentRemoved: true }
    expect(isSweptForGood(job([queued], done))).toBe(false)
    expect(isSweptForGood(job([queued, failed], { artifactRemoved: false, documentRemoved: true }))).toBe(true)
    expect(isSweptForGood(job([queued, started, completed], { artifactRemoved: false, documentRemoved: true }))).toBe(false)
    expect(isSweptForGood(job([queued, started, completed], done))).toBe(true)
    expect(isSweptForGood(thumbnail())).toBe(false)
    expect(isSweptForGood(thumbnail(true))).toBe(true)
  })
})

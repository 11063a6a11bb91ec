// Given a job's events before and after the event that woke the dispatcher, when woken by it or by a redelivery request,
// then the announcements it sends.
import { describe, expect, it } from "vitest"
import { ReactionSpecification } from "@mds/shared/domain/ReactionSpecification"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJob, type JobState } from "@mds/shared/domain/job/JobState"
import { type AnnouncementTrigger, endNamed, type JobAt, jobEndSeed, react } from "./JobAnnouncements.ts"
import { jobArtifact, jobCompleted, jobExpired, jobFailed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"

const T0 = 1_000_000
const jobId = "job_a"
const queued = jobQueued("prj_a", jobId, T0)
const started = jobStarted(jobId, T0 + 10)
const completed = jobCompleted("prj_a", jobId, T0 + 20, jobArtifact("prj_a", jobId, T0 + 20))
const failed = jobFailed(jobId, T0 + 20, { code: "download_failed", message: "x", retryable: true })
const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: T0 + 20 }
const expired = jobExpired(jobId, T0 + 30)
const retried: JobEvent = { _tag: "JobRetried", v: 1, jobId, retry: 1, attempt: 1, by: "client", at: T0 + 40 }

const fold = (events: ReadonlyArray<JobEvent>): JobState => events.reduce<JobState>(evolveJob, null)
/** The job's events up to the one that woke the dispatcher (the last). */
const upTo = (...events: ReadonlyArray<JobEvent>): JobAt => ({ before: fold(events.slice(0, -1)), after: fold(events) })
const given = ReactionSpecification.for(react)
const ended: AnnouncementTrigger = { _tag: "JobEnded" }
const redelivery = (eventType: "job.completed" | "job.failed"): AnnouncementTrigger => ({
  _tag: "RedeliveryAsked",
  eventType,
  afterAttemptAt: T0 + 500
})

describe("the job webhooks' reaction", () => {
  it("a job's completion is announced as job.completed, its failure as job.failed", () => {
    given(upTo(queued, started, completed))
      .when(ended)
      .then([{ _tag: "Announce", type: "job.completed" }])
    given(upTo(queued, started, failed))
      .when(ended)
      .then([{ _tag: "Announce", type: "job.failed" }])
  })

  it("a canceled job is announced as failed; an expired one to nobody", () => {
    given(upTo(queued, canceled))
      .when(ended)
      .then([{ _tag: "Announce", type: "job.failed" }])
    given(upTo(queued, expired)).when(ended).thenNothing()
  })

  it("an event folded into a job already ended announces nothing", () => {
    given(upTo(queued, started, completed, failed))
      .when(ended)
      .thenNothing()
    given(upTo(queued, canceled, expired))
      .when(ended)
      .thenNothing()
  })

  it("a failure after a retry is announced again (the retry reopened the job)", () => {
    given(upTo(queued, started, failed, retried, jobStarted(jobId, T0 + 50, { attempt: 2 }), failed))
      .when(ended)
      .then([{ _tag: "Announce", type: "job.failed" }])
  })

  it("a redelivery asked for sends the same event again, marked with the attempt it was asked after", () => {
    given(upTo(queued, started, completed))
      .when(redelivery("job.completed"))
      .then([{ _tag: "Announce", type: "job.completed", redeliveryOf: T0 + 500 }])
  })

  it("a redelivery whose named state is not an end of that type (not ended, or ended otherwise) sends nothing", () => {
    given(upTo(queued, started, failed, retried))
      .when(redelivery("job.failed"))
      .thenNothing()
    given(upTo(queued, started, completed))
      .when(redelivery("job.failed"))
      .thenNothing()
  })

  it("each end of a retried job has its own delivery seed; the first keeps the job id alone", () => {
    expect(jobEndSeed(jobId, fold([queued, started, failed]))).toBe(jobId)
    expect(jobEndSeed(jobId, fold([queued, started, failed, retried, jobStarted(jobId, T0 + 50, { attempt: 2 }), failed]))).toBe(
      `${jobId}:retry:1`
    )
  })

  it("a redelivery finds the end its delivery id names, an earlier try's failure after a retry included", () => {
    const events = [queued, started, failed, retried, jobStarted(jobId, T0 + 50, { attempt: 2 }), completed]
    const states = events.map((_, i) => fold(events.slice(0, i + 1)))
    const idOf = (seed: string) => `id:${seed}`
    expect(endNamed(jobId, states, "job.failed", idOf(jobId), idOf)?.error?.code).toBe("download_failed")
    expect(endNamed(jobId, states, "job.completed", idOf(`${jobId}:retry:1`), idOf)?.artifact).not.toBeNull()
    // The id of an end that never was, or of the right end as the wrong type: nothing.
    expect(endNamed(jobId, states, "job.failed", idOf(`${jobId}:retry:1`), idOf)).toBeNull()
    expect(endNamed(jobId, states, "job.completed", idOf(jobId), idOf)).toBeNull()
  })
})

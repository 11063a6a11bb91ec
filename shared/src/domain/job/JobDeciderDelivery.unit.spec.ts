// Specifications of the job decider's delivery: a job with a destination stores its file, waits for the delivery,
// completes once it is delivered and fails with the destination's code once retries are used up or it is refused.
import { describe, expect, it } from "vitest"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { foldEvents } from "../Decider.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobArtifact, JobEvent } from "./JobEvent.ts"
import { slotReleaseOf } from "./JobSlot.ts"

const given = DeciderSpecification.for(JobDecider)
const jobId = "job_a"
const T0 = 1_000_000
const LIFETIME = 3_600_000
const DELAYS = [10_000, 60_000]
const order = { destinationId: "dst_a", pathTemplate: "{uploader}/{title}.{ext}", sidecars: ["nfo"] } as const
const queued: JobEvent = jobQueued("prj_a", jobId, T0, { expiresAt: T0 + LIFETIME, options: { delivery: order } })
const started: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w1", work: 7, at: T0 + 10 }
const artifact: JobArtifact = {
  key: "prj_a/job_a/v.mp4",
  filename: "v.mp4",
  mimeType: "video/mp4",
  sizeBytes: 42,
  availableUntil: T0 + 2 * LIFETIME
}
const target = {
  path: "Chan/Talk.mp4",
  sidecars: [{ key: "prj_a/job_a/sidecars/Talk.nfo", path: "Chan/Talk.nfo", contentType: "text/xml" }]
}
const stored: JobEvent = {
  _tag: "JobStored",
  v: 1,
  jobId,
  artifact,
  delivery: { destinationId: "dst_a", ...target },
  at: T0 + 30
}
const unreachable = { code: "destination_unreachable", message: "connect ECONNREFUSED" } as const
const denied = { code: "destination_denied", message: "AccessDenied" } as const
const tried = (attempt: number, at: number, delay: number): JobEvent => ({
  _tag: "JobDeliveryTried",
  v: 1,
  jobId,
  attempt,
  error: unreachable,
  retryAt: at + delay,
  at
})
const record = (
  attempt: number,
  outcome: { _tag: "Delivered" } | { _tag: "Failed"; error: typeof unreachable | typeof denied },
  now: number
) => ({ _tag: "RecordDelivery", jobId, attempt, outcome, retryDelaysMs: DELAYS, now }) as const

describe("JobDecider: delivery", () => {
  describe("CompleteJob of a job with a destination", () => {
    const complete = { _tag: "CompleteJob", jobId, artifact, now: T0 + 30, attempt: 1, delivery: target } as const
    it("records the stored file and where it goes, and keeps the job processing", () => {
      given([queued, started]).when(complete).then([stored])
      const state = foldEvents(JobDecider, [queued, started, stored])
      expect(state?.status).toBe("processing")
      expect(state?.delivery).toMatchObject({ status: "pending", path: "Chan/Talk.mp4", attempts: 0 })
    })
    it("stores once: the same completion again changes nothing", () => given([queued, started, stored]).when(complete).thenNothing())
    it("refuses a completion that does not say where the file goes", () =>
      given([queued, started])
        .when({ _tag: "CompleteJob", jobId, artifact, now: T0 + 30, attempt: 1 })
        .thenRejects("InvalidJobTransition"))
    it("starts no new run for a work message handed out again once the file is stored", () =>
      given([queued, started, stored])
        .when({ _tag: "StartJob", jobId, workerId: "w2", now: T0 + 40, work: 7 })
        .thenRejects("RunNotCurrent"))
    it("holds the job's slot while the delivery is pending", () =>
      expect(slotReleaseOf(foldEvents(JobDecider, [queued, started, stored]))).toBeNull())
    it("keeps a partial file's reason through the delivery: the job completes partial once delivered", () => {
      const partial: JobEvent = { ...stored, partial: "worker_lost" } as JobEvent
      given([queued, started])
        .when({ ...complete, partial: "worker_lost" })
        .then([partial])
      const delivered = JobDecider.decide(record(1, { _tag: "Delivered" }, T0 + 50), foldEvents(JobDecider, [queued, started, partial]))
      const events = delivered._tag === "Success" ? delivered.success : []
      const state = foldEvents(JobDecider, [queued, started, partial, ...events])
      expect(state).toMatchObject({ status: "completed", partial: "worker_lost", delivery: { status: "delivered" } })
    })
  })

  describe("RecordDelivery", () => {
    it("completes a delivered job with its stored file, after recording the path", () =>
      given([queued, started, stored])
        .when(record(1, { _tag: "Delivered" }, T0 + 50))
        .then([
          { _tag: "JobDelivered", v: 1, jobId, destinationId: "dst_a", path: "Chan/Talk.mp4", at: T0 + 50 },
          { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 50 }
        ]))
    it("waits the configured delay after a retryable failure", () =>
      given([queued, started, stored])
        .when(record(1, { _tag: "Failed", error: unreachable }, T0 + 50))
        .then([tried(1, T0 + 50, 10_000)]))
    it("fails the job with the destination's code once its retries are used up", () =>
      given([queued, started, stored, tried(1, T0 + 50, 10_000), tried(2, T0 + 60_050, 60_000)])
        .when(record(3, { _tag: "Failed", error: unreachable }, T0 + 120_050))
        .then([
          { _tag: "JobDeliveryFailed", v: 1, jobId, attempt: 3, error: unreachable, at: T0 + 120_050 },
          {
            _tag: "JobFailed",
            v: 1,
            jobId,
            error: {
              code: "destination_unreachable",
              message: "The file was stored but could not be delivered: connect ECONNREFUSED",
              retryable: false
            },
            at: T0 + 120_050
          }
        ]))
    it("fails the job at once when the destination refuses", () =>
      given([queued, started, stored])
        .when(record(1, { _tag: "Failed", error: denied }, T0 + 50))
        .then([
          { _tag: "JobDeliveryFailed", v: 1, jobId, attempt: 1, error: denied, at: T0 + 50 },
          {
            _tag: "JobFailed",
            v: 1,
            jobId,
            error: {
              code: "destination_denied",
              message: "The file was stored but could not be delivered: AccessDenied",
              retryable: false
            },
            at: T0 + 50
          }
        ]))
    it("takes an attempt's outcome once: a repeated report changes nothing", () =>
      given([queued, started, stored, tried(1, T0 + 50, 10_000)])
        .when(record(1, { _tag: "Failed", error: unreachable }, T0 + 55))
        .thenNothing())
    it("records nothing more once delivered, or once the job was canceled", () => {
      const delivered: JobEvent = { _tag: "JobDelivered", v: 1, jobId, destinationId: "dst_a", path: "Chan/Talk.mp4", at: T0 + 50 }
      const completed: JobEvent = { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 50 }
      given([queued, started, stored, delivered, completed])
        .when(record(1, { _tag: "Delivered" }, T0 + 60))
        .thenNothing()
      given([queued, started, stored, { _tag: "JobCanceled", v: 1, jobId, at: T0 + 40 }])
        .when(record(1, { _tag: "Delivered" }, T0 + 60))
        .thenNothing()
    })
    it("frees the slot of a job canceled while its delivery waited (no run is left to free it)", () =>
      expect(slotReleaseOf(foldEvents(JobDecider, [queued, started, stored, { _tag: "JobCanceled", v: 1, jobId, at: T0 + 40 }]))).toBe(
        "canceled"
      ))
    it("refuses an outcome for a job that stored nothing", () =>
      given([queued, started])
        .when(record(1, { _tag: "Delivered" }, T0 + 50))
        .thenRejects("InvalidJobTransition"))
    it("shows the delivery's state in the job: delivered, with its path", () => {
      const state = foldEvents(JobDecider, [
        queued,
        started,
        stored,
        { _tag: "JobDelivered", v: 1, jobId, destinationId: "dst_a", path: "Chan/Talk.mp4", at: T0 + 50 },
        { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 50 }
      ])
      expect(state?.status).toBe("completed")
      expect(state?.delivery).toMatchObject({ status: "delivered", path: "Chan/Talk.mp4", deliveredAt: T0 + 50 })
    })
  })
})

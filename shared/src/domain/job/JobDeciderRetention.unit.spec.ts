// Specifications of the job decider's retention: a delivered job's removal is recorded once, with the paths of the media
// and its own sidecars (never the show's shared files); a job not delivered has nothing to remove.
import { describe, expect, it } from "vitest"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { foldEvents } from "../Decider.ts"
import { JobDecider } from "./JobDecider.ts"
import type { JobEvent } from "./JobEvent.ts"

const given = DeciderSpecification.for(JobDecider)
const jobId = "job_a"
const T0 = 1_000_000
const library = { subscriptionId: "sub_a", title: "Chan" }
const order = { destinationId: "dst_a", pathTemplate: "{uploader}/{title}.{ext}", sidecars: ["nfo"], library } as const
const queued: JobEvent = jobQueued("prj_a", jobId, T0, { expiresAt: T0 + 3_600_000, options: { delivery: order } })
const started: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w1", work: 7, at: T0 + 10 }
const artifact = { key: "k/v.mp4", filename: "v.mp4", mimeType: "video/mp4", sizeBytes: 42, availableUntil: T0 + 7_200_000 }
const stored: JobEvent = {
  _tag: "JobStored",
  v: 1,
  jobId,
  artifact,
  delivery: {
    destinationId: "dst_a",
    path: "Chan/Talk.mp4",
    sidecars: [
      { key: "k/nfo", path: "Chan/Talk.nfo", contentType: "text/xml" },
      { key: "k/tvshow", path: "Chan/tvshow.nfo", contentType: "text/xml", show: true }
    ]
  },
  at: T0 + 30
}
const delivered: ReadonlyArray<JobEvent> = [
  { _tag: "JobDelivered", v: 1, jobId, destinationId: "dst_a", path: "Chan/Talk.mp4", at: T0 + 40 },
  { _tag: "JobCompleted", v: 1, jobId, artifact, at: T0 + 40 }
]
const remove = { _tag: "RecordDeliveryRemoved", jobId, subscriptionId: "sub_a", now: T0 + 100 } as const
const removed: JobEvent = {
  _tag: "JobDeliveryRemoved",
  v: 1,
  jobId,
  destinationId: "dst_a",
  subscriptionId: "sub_a",
  paths: ["Chan/Talk.nfo", "Chan/Talk.mp4"],
  at: T0 + 100
}

describe("JobDecider: retention", () => {
  it("records the removal of a delivered job's media and own sidecars, not the show's files", () =>
    given([queued, started, stored, ...delivered])
      .when(remove)
      .then([removed]))

  it("shows the delivery removed, with when", () => {
    const state = foldEvents(JobDecider, [queued, started, stored, ...delivered, removed])
    expect(state?.status).toBe("completed")
    expect(state?.delivery?.status).toBe("removed")
    expect(state?.delivery?.removedAt).toBe(T0 + 100)
  })

  it("records it once: a removal carried out again changes nothing", () =>
    given([queued, started, stored, ...delivered, removed])
      .when(remove)
      .thenNothing())

  it("refuses a job whose delivery is not done", () => given([queued, started, stored]).when(remove).thenRejects("InvalidJobTransition"))

  it("refuses an unknown job", () => given([]).when(remove).thenRejects("JobNotFound"))
})

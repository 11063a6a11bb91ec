// Specifications of the per-project admission slots: limit, idempotent claims, self-freeing expired slots, release.
import { describe, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { AdmissionDecider } from "./AdmissionDecider.ts"
import type { AdmissionEvent } from "./AdmissionEvent.ts"

const given = DeciderSpecification.for(AdmissionDecider)
const projectId = "prj_a"
const claim = (jobId: string, now = 100, expiresAt = 1_000) => ({ _tag: "ClaimSlot", projectId, jobId, limit: 2, now, expiresAt }) as const
const release = (jobId: string, now = 200) => ({ _tag: "ReleaseSlot", projectId, jobId, reason: "completed", now }) as const
const claimed = (jobId: string, held: ReadonlyArray<readonly [string, number]>, at = 100, expiresAt = 1_000): AdmissionEvent => ({
  _tag: "SlotClaimed",
  v: 1,
  projectId,
  jobId,
  at,
  expiresAt,
  held: held.map(([id, until]) => ({ jobId: id, expiresAt: until }))
})

/** Both slots held: job_1's claim, then job_2's, each until 1_000. */
const bothHeld = claimed("job_2", [
  ["job_1", 1_000],
  ["job_2", 1_000]
])

describe("AdmissionDecider", () => {
  it("claims a slot in an empty project", () =>
    given([])
      .when(claim("job_1"))
      .then([claimed("job_1", [["job_1", 1_000]])]))

  it("claims the second slot", () =>
    given([claimed("job_1", [["job_1", 1_000]])])
      .when(claim("job_2"))
      .then([bothHeld]))

  it("rejects a third job while two are held", () => given([bothHeld]).when(claim("job_3")).thenRejects("ConcurrencyLimitExceeded"))

  it("is idempotent for a job that already holds a slot", () => given([bothHeld]).when(claim("job_2")).thenNothing())

  it("frees slots whose job lifetime has ended", () =>
    given([
      claimed("job_2", [
        ["job_1", 500],
        ["job_2", 1_000]
      ])
    ])
      .when(claim("job_3", 500, 2_000))
      .then([
        claimed(
          "job_3",
          [
            ["job_2", 1_000],
            ["job_3", 2_000]
          ],
          500,
          2_000
        )
      ]))

  it("releases a held slot", () =>
    given([bothHeld])
      .when(release("job_1"))
      .then([
        {
          _tag: "SlotReleased",
          v: 1,
          projectId,
          jobId: "job_1",
          reason: "completed",
          at: 200,
          held: [{ jobId: "job_2", expiresAt: 1_000 }]
        }
      ]))

  it("releasing a slot that is not held does nothing", () =>
    given([claimed("job_1", [["job_1", 1_000]])])
      .when(release("job_9"))
      .thenNothing())

  it("after a release a new job fits again", () =>
    given([
      bothHeld,
      { _tag: "SlotReleased", v: 1, projectId, jobId: "job_1", reason: "failed", at: 150, held: [{ jobId: "job_2", expiresAt: 1_000 }] }
    ])
      .when(claim("job_3", 160))
      .then([
        claimed(
          "job_3",
          [
            ["job_2", 1_000],
            ["job_3", 1_000]
          ],
          160
        )
      ]))
})

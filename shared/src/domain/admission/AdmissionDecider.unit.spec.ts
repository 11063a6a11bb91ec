// Specifications of the per-project admission: slot limit, idempotent claims, self-freeing slots, release, quotas.
import { describe, expect, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import type { QuotaExceeded } from "../DomainErrors.ts"
import { AdmissionDecider, EXPIRED_SLOT_KEPT_MS } from "./AdmissionDecider.ts"
import type { AdmissionEvent } from "./AdmissionEvent.ts"
import { bytesLeft, type QuotaLimits, type QuotaUsage } from "./Quota.ts"

const given = DeciderSpecification.for(AdmissionDecider)
const projectId = "prj_a"
const DAY = "1970-01-01"
const MONTH = "1970-01"
const used = (jobs: number, bytes = 0, day = DAY, month = MONTH): QuotaUsage => ({ day, jobs, month, bytes })
const claim = (jobId: string, now = 100, expiresAt = 1_000, quota?: QuotaLimits) =>
  ({ _tag: "ClaimSlot", projectId, jobId, limit: 2, now, expiresAt, ...(quota === undefined ? {} : { quota }) }) as const
const release = (jobId: string, now = 200, bytes?: number) =>
  ({ _tag: "ReleaseSlot", projectId, jobId, reason: "completed", now, ...(bytes === undefined ? {} : { bytes }) }) as const
const claimed = (
  jobId: string,
  held: ReadonlyArray<readonly [string, number]>,
  usage: QuotaUsage,
  at = 100,
  expiresAt = 1_000
): AdmissionEvent => ({
  _tag: "SlotClaimed",
  v: 2,
  projectId,
  jobId,
  at,
  expiresAt,
  held: held.map(([id, until]) => ({ jobId: id, expiresAt: until })),
  usage
})

/** Both slots held: job_1's claim, then job_2's, each until 1_000. */
const bothHeld = claimed(
  "job_2",
  [
    ["job_1", 1_000],
    ["job_2", 1_000]
  ],
  used(2)
)

describe("AdmissionDecider", () => {
  it("claims a slot in an empty project", () =>
    given([])
      .when(claim("job_1"))
      .then([claimed("job_1", [["job_1", 1_000]], used(1))]))

  it("claims the second slot", () =>
    given([claimed("job_1", [["job_1", 1_000]], used(1))])
      .when(claim("job_2"))
      .then([bothHeld]))

  it("rejects a third job while two are held", () => given([bothHeld]).when(claim("job_3")).thenRejects("ConcurrencyLimitExceeded"))

  it("is idempotent for a job that already holds a slot", () => given([bothHeld]).when(claim("job_2")).thenNothing())

  it("frees slots whose job lifetime has ended: they count no more, and stay listed a day for their release", () =>
    given([
      claimed(
        "job_2",
        [
          ["job_1", 500],
          ["job_2", 1_000]
        ],
        used(2)
      )
    ])
      .when(claim("job_3", 500, 2_000))
      .then([
        claimed(
          "job_3",
          [
            ["job_1", 500],
            ["job_2", 1_000],
            ["job_3", 2_000]
          ],
          used(3),
          500,
          2_000
        )
      ]))

  it("counts the bytes of a job completed just before its lifetime ended, released after it", () =>
    given([claimed("job_1", [["job_1", 1_000]], used(1))])
      .when({ ...release("job_1", 1_500, 70), reason: "completed" })
      .then([
        {
          _tag: "SlotReleased",
          v: 2,
          projectId,
          jobId: "job_1",
          reason: "completed",
          at: 1_500,
          held: [],
          bytes: 70,
          usage: used(1, 70)
        }
      ]))

  it("drops a slot a day after its lifetime ended", () =>
    given([claimed("job_1", [["job_1", 1_000]], used(1))])
      .when(claim("job_2", 1_000 + EXPIRED_SLOT_KEPT_MS, 2_000 + EXPIRED_SLOT_KEPT_MS))
      .then([
        claimed(
          "job_2",
          [["job_2", 2_000 + EXPIRED_SLOT_KEPT_MS]],
          used(1, 0, "1970-01-02"),
          1_000 + EXPIRED_SLOT_KEPT_MS,
          2_000 + EXPIRED_SLOT_KEPT_MS
        )
      ]))

  it("releases a held slot", () =>
    given([bothHeld])
      .when(release("job_1"))
      .then([
        {
          _tag: "SlotReleased",
          v: 2,
          projectId,
          jobId: "job_1",
          reason: "completed",
          at: 200,
          held: [{ jobId: "job_2", expiresAt: 1_000 }],
          usage: used(2)
        }
      ]))

  it("releasing a slot that is not held does nothing", () =>
    given([claimed("job_1", [["job_1", 1_000]], used(1))])
      .when(release("job_9"))
      .thenNothing())

  it("after a release a new job fits again", () =>
    given([
      bothHeld,
      {
        _tag: "SlotReleased",
        v: 2,
        projectId,
        jobId: "job_1",
        reason: "failed",
        at: 150,
        held: [{ jobId: "job_2", expiresAt: 1_000 }],
        usage: used(2)
      }
    ])
      .when(claim("job_3", 160))
      .then([
        claimed(
          "job_3",
          [
            ["job_2", 1_000],
            ["job_3", 1_000]
          ],
          used(3),
          160
        )
      ]))
})

describe("AdmissionDecider: quotas", () => {
  const fivePerDay: QuotaLimits = { jobsPerDay: 5, bytesPerMonth: null }
  const tenBytes: QuotaLimits = { jobsPerDay: null, bytesPerMonth: 10 }
  const ONE_DAY = 86_400_000

  it("admits the last job of the day's quota", () =>
    given([claimed("job_4", [], used(4))])
      .when(claim("job_5", 100, 1_000, fivePerDay))
      .then([claimed("job_5", [["job_5", 1_000]], used(5))]))

  it("refuses a job over the day's quota, until the next UTC midnight", () => {
    const refusal = given([claimed("job_5", [], used(5))])
      .when(claim("job_6", 100, 1_000, fivePerDay))
      .thenRejects("QuotaExceeded") as QuotaExceeded
    expect(refusal).toMatchObject({ quota: "jobs_per_day", limit: 5, used: 5, resetAt: ONE_DAY })
    expect(refusal.retryAfterSeconds).toBe(Math.ceil((ONE_DAY - 100) / 1000))
  })

  it("names the quota before a full project", () =>
    given([bothHeld])
      .when(claim("job_3", 100, 1_000, { jobsPerDay: 2, bytesPerMonth: null }))
      .thenRejects("QuotaExceeded"))

  it("counts jobs afresh on a new UTC day", () =>
    given([claimed("job_5", [], used(5))])
      .when(claim("job_6", ONE_DAY + 1, ONE_DAY + 1_000, fivePerDay))
      .then([claimed("job_6", [["job_6", ONE_DAY + 1_000]], used(1, 0, "1970-01-02"), ONE_DAY + 1, ONE_DAY + 1_000)]))

  it("a completed job's release counts its bytes toward the month", () =>
    given([claimed("job_1", [["job_1", 1_000]], used(1, 4))])
      .when(release("job_1", 200, 6))
      .then([
        {
          _tag: "SlotReleased",
          v: 2,
          projectId,
          jobId: "job_1",
          reason: "completed",
          at: 200,
          held: [],
          bytes: 6,
          usage: used(1, 10)
        }
      ]))

  it("refuses a job once the month's bytes are used up, until the first of the next month", () => {
    const refusal = given([claimed("job_1", [], used(1, 10))])
      .when(claim("job_2", 100, 1_000, tenBytes))
      .thenRejects("QuotaExceeded") as QuotaExceeded
    expect(refusal).toMatchObject({ quota: "bytes_per_month", limit: 10, used: 10, resetAt: Date.UTC(1970, 1, 1) })
  })

  it("counts bytes afresh in a new UTC month", () => {
    const february = Date.UTC(1970, 1, 1)
    return given([claimed("job_1", [], used(1, 10))])
      .when(claim("job_2", february, february + 1_000, tenBytes))
      .then([claimed("job_2", [["job_2", february + 1_000]], used(1, 0, "1970-02-01", "1970-02"), february, february + 1_000)])
  })

  it("reads a v1 stream (written before quotas) as no usage yet", () =>
    given([
      { _tag: "SlotClaimed", v: 1, projectId, jobId: "job_1", at: 50, expiresAt: 1_000, held: [{ jobId: "job_1", expiresAt: 1_000 }] }
    ])
      .when(claim("job_2", 100, 1_000, fivePerDay))
      .then([
        claimed(
          "job_2",
          [
            ["job_1", 1_000],
            ["job_2", 1_000]
          ],
          used(1)
        )
      ]))
})

/**
 * The bound on how far jobs running at once can take a project past its monthly byte quota. Each admitted job is told
 * what the quota left at its admission (`bytesLeft`), not what is left once the jobs already running finish, so with
 * `limit` slots the month can end at most (limit - 1) files over the quota, each file no larger than what was left
 * when it was admitted (so never more than the quota, nor MAX_FILE_SIZE_MB): docs/operations.md, "Quotas and usage".
 */
describe("AdmissionDecider: how far jobs running at once can cross the byte quota", () => {
  const QUOTA = 10
  const limits: QuotaLimits = { jobsPerDay: null, bytesPerMonth: QUOTA }

  interface Project {
    state: ReturnType<typeof AdmissionDecider.initialState>
    /** The bytes each running job was told it may use. */
    readonly running: Map<string, number>
  }

  const claimIn = (project: Project, jobId: string, limit: number, now: number): boolean => {
    const decided = AdmissionDecider.decide(
      { _tag: "ClaimSlot", projectId, jobId, limit, quota: limits, now, expiresAt: 1e12 },
      project.state
    )
    if (decided._tag === "Failure") return false
    for (const event of decided.success) project.state = AdmissionDecider.evolve(project.state, event)
    project.running.set(jobId, bytesLeft(limits, project.state.usage, now) ?? Number.POSITIVE_INFINITY)
    return true
  }

  const completeIn = (project: Project, jobId: string, bytes: number, now: number) => {
    const told = project.running.get(jobId) ?? 0
    // The extractor fails a file larger than it was told (quota_exceeded, nothing stored): such a job adds nothing.
    const stored = bytes <= told ? bytes : 0
    const decided = AdmissionDecider.decide(
      { _tag: "ReleaseSlot", projectId, jobId, reason: stored > 0 ? "completed" : "failed", now, bytes: stored },
      project.state
    )
    if (decided._tag === "Success") for (const event of decided.success) project.state = AdmissionDecider.evolve(project.state, event)
    project.running.delete(jobId)
  }

  it("two jobs admitted with 6 bytes left are each told 6: both files complete and the month ends one file over, then refuses", () => {
    const project: Project = {
      state: AdmissionDecider.evolve(AdmissionDecider.initialState(), claimed("job_0", [], used(1, 4))),
      running: new Map()
    }
    expect(claimIn(project, "job_1", 2, 100)).toBe(true)
    expect(claimIn(project, "job_2", 2, 110)).toBe(true)
    expect([...project.running.values()]).toEqual([6, 6])
    completeIn(project, "job_1", 6, 200)
    completeIn(project, "job_2", 6, 210)
    expect(project.state.usage.bytes).toBe(QUOTA + 6)
    expect(claimIn(project, "job_3", 2, 300)).toBe(false)
  })

  it("whatever the order of claims and completions, the month ends at most (limit - 1) files over the quota", () => {
    // A seeded generator: the same schedules on every run.
    let seed = 24
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (const limit of [1, 2, 3]) {
      const bound = QUOTA + (limit - 1) * QUOTA
      let highest = 0
      for (let run = 0; run < 100; run++) {
        const project: Project = { state: AdmissionDecider.initialState(), running: new Map() }
        for (let step = 0; step < 60; step++) {
          const now = 100 + step
          const ids = [...project.running.keys()]
          if (ids.length > 0 && random() < 0.5) {
            const jobId = ids[Math.floor(random() * ids.length)] ?? ""
            // Mostly files that fit what the job was told, now and then one larger (refused by the extractor).
            completeIn(project, jobId, Math.floor(random() * ((project.running.get(jobId) ?? 0) + 2)), now)
          } else claimIn(project, `job_${run}_${step}`, limit, now)
        }
        for (const jobId of [...project.running.keys()]) completeIn(project, jobId, project.running.get(jobId) ?? 0, 1_000)
        expect(project.state.usage.bytes, `limit ${limit}, run ${run}`).toBeLessThanOrEqual(bound)
        highest = Math.max(highest, project.state.usage.bytes)
      }
      // The schedules did cross the quota: the bound was put to the test.
      if (limit > 1) expect(highest, `limit ${limit}`).toBeGreaterThan(QUOTA)
    }
  })

  it("the bound is reached: three slots taken in an empty month are each told the whole quota, and the month ends two quotas over", () => {
    const project: Project = { state: AdmissionDecider.initialState(), running: new Map() }
    for (const jobId of ["job_1", "job_2", "job_3"]) expect(claimIn(project, jobId, 3, 100)).toBe(true)
    expect([...project.running.values()]).toEqual([QUOTA, QUOTA, QUOTA])
    for (const jobId of ["job_1", "job_2", "job_3"]) completeIn(project, jobId, QUOTA, 200)
    expect(project.state.usage.bytes).toBe(QUOTA + 2 * QUOTA)
  })
})

// Given a day's counters and a job's change, then the counters: the job's old share out, its new one in.
import { describe, expect, it } from "vitest"
import type { JobUsage } from "./JobUsage.ts"
import { noUsage, withJobChange } from "./UsageDayCounts.ts"

const usage = (fields: Partial<JobUsage>): JobUsage => ({
  projectId: "prj_a",
  jobId: "job_1",
  day: "2026-11-20",
  status: "queued",
  platform: "vimeo",
  errorCode: null,
  bytes: 0,
  lastSeq: 1,
  ...fields
})

const empty = noUsage("prj_a", "2026-11-20")
const zero = { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0, bytes: 0 }

describe("withJobChange", () => {
  it("adds a new job, then moves it from status to status, bytes and all", () => {
    const queued = usage({})
    const completed = usage({ status: "completed", bytes: 700, lastSeq: 5 })
    const once = withJobChange(empty, null, queued)
    expect(once.platforms).toEqual({ vimeo: { ...zero, queued: 1 } })
    expect(withJobChange(once, queued, completed).platforms).toEqual({ vimeo: { ...zero, completed: 1, bytes: 700 } })
  })

  it("counts failures by code with the latest failures as examples, at most 3, and takes a job out that stopped failing", () => {
    const failed = (jobId: string, lastSeq: number) => usage({ jobId, status: "failed", errorCode: "download_failed", lastSeq })
    const day = [failed("job_a", 1), failed("job_c", 9), failed("job_b", 4), failed("job_d", 2)].reduce(
      (counts, job) => withJobChange(counts, null, job),
      empty
    )
    expect(day.errors).toEqual({ download_failed: 4 })
    expect(day.examples["download_failed"]?.map((example) => example.jobId)).toEqual(["job_c", "job_b", "job_d"])
    const retried = withJobChange(day, failed("job_c", 9), usage({ jobId: "job_c", status: "queued", lastSeq: 11 }))
    expect(retried.errors).toEqual({ download_failed: 3 })
    expect(retried.examples["download_failed"]?.map((example) => example.jobId)).toEqual(["job_b", "job_d"])
    expect(retried.platforms["vimeo"]).toEqual({ ...zero, failed: 3, queued: 1 })
  })

  it("keeps the counters bounded by platforms and codes: what drops to nothing is removed", () => {
    const failed = usage({ platform: "generic", status: "failed", errorCode: "media_unavailable" })
    const moved = withJobChange(withJobChange(empty, null, failed), failed, usage({ platform: "generic", status: "expired", lastSeq: 3 }))
    expect(moved).toEqual({ ...empty, platforms: { generic: { ...zero, expired: 1 } } })
    expect(withJobChange(withJobChange(empty, null, failed), failed, null)).toEqual(empty)
  })

  it("gives the same document, byte for byte, whatever order the day's changes came in", () => {
    const jobs = [
      usage({ jobId: "job_1", platform: "vimeo" }),
      usage({ jobId: "job_2", platform: "generic", status: "failed", errorCode: "media_unavailable", lastSeq: 4 }),
      usage({ jobId: "job_3", platform: "youtube", status: "failed", errorCode: "download_failed", lastSeq: 7 })
    ]
    const inOrder = jobs.reduce((counts, job) => withJobChange(counts, null, job), empty)
    const reversed = [...jobs].reverse().reduce((counts, job) => withJobChange(counts, null, job), empty)
    // A platform that dropped to nothing and came back is where it belongs, not last.
    const gone = withJobChange(inOrder, jobs[0] ?? null, null)
    const back = withJobChange(gone, null, usage({ jobId: "job_1", platform: "vimeo", lastSeq: 9 }))
    expect(JSON.stringify(reversed)).toBe(JSON.stringify(inOrder))
    expect(Object.keys(back.platforms)).toEqual(["generic", "vimeo", "youtube"])
    expect(Object.keys(inOrder.errors)).toEqual(["download_failed", "media_unavailable"])
  })
})

// A job's usage from its one state, and a project's report summed from its days' counters.
import { describe, expect, it } from "vitest"
import type { JobView } from "../job/JobView.ts"
import { jobUsageOf, type JobUsage } from "./JobUsage.ts"
import { noUsage, withJobChange } from "./UsageDayCounts.ts"
import { daysBetween, usageReport } from "./UsageReport.ts"
import { parseFormatId } from "../media/FormatId.ts"

const view = (fields: Partial<JobView> = {}): JobView => ({
  id: "job_1",
  projectId: "prj_a",
  status: "queued",
  progress: 0,
  platform: "vimeo",
  format: parseFormatId("video_best"),
  source: { url: "https://vimeo.com/1", mediaId: null },
  attempt: 0,
  createdAt: Date.UTC(2026, 10, 20, 23, 59),
  expiresAt: Date.UTC(2026, 10, 21, 1),
  startedAt: null,
  completedAt: null,
  artifact: null,
  error: null,
  lastSeq: 4,
  ...fields
})

const usage = (fields: Partial<JobUsage>): JobUsage => ({
  projectId: "prj_a",
  jobId: "job_1",
  day: "2026-11-20",
  status: "completed",
  platform: "vimeo",
  errorCode: null,
  bytes: 0,
  lastSeq: 1,
  ...fields
})

describe("jobUsageOf", () => {
  it("counts a job on the UTC day it was queued, not the day it ended", () =>
    expect(
      jobUsageOf(
        view({
          status: "failed",
          completedAt: Date.UTC(2026, 10, 21, 0, 5),
          error: { code: "download_failed", message: "x", retryable: true }
        }),
        9
      )
    ).toEqual(usage({ status: "failed", errorCode: "download_failed", lastSeq: 9 })))
  it("a canceled job counts as canceled, without an error code", () =>
    expect(jobUsageOf(view({ status: "failed", error: { code: "canceled", message: "x", retryable: false } }), 4)?.status).toBe("canceled"))
  it("a completed job counts its file's bytes", () =>
    expect(
      jobUsageOf(
        view({ status: "completed", artifact: { key: "k", filename: "a.mp4", mimeType: "video/mp4", sizeBytes: 777, availableUntil: 0 } }),
        4
      )?.bytes
    ).toBe(777))
  it("nothing before the job was queued", () => expect(jobUsageOf(null, 0)).toBeNull())
})

/** A day's counters, as the usage read model folds them, from the jobs' usage. */
const dayOf = (day: string, jobs: ReadonlyArray<JobUsage>) =>
  jobs.reduce((counts, job) => withJobChange(counts, null, job), noUsage("prj_a", day))

describe("usageReport", () => {
  it("lists every day of the range, empty ones too", () => {
    expect(daysBetween("2026-02-27", "2026-03-01")).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"])
    expect(usageReport("2026-11-19", "2026-11-20", []).days.map((d) => d.jobs)).toEqual([0, 0])
  })
  it("sums days, platforms and totals; orders error codes by count with the newest days' latest failures first", () => {
    const report = usageReport("2026-11-20", "2026-11-21", [
      dayOf("2026-11-20", [
        usage({ jobId: "job_a", bytes: 10 }),
        usage({ jobId: "job_b", platform: "generic", status: "failed", errorCode: "download_failed", lastSeq: 5 })
      ]),
      dayOf("2026-11-21", [
        usage({ jobId: "job_c", day: "2026-11-21", status: "failed", errorCode: "download_failed" }),
        usage({ jobId: "job_d", day: "2026-11-21", status: "failed", errorCode: "media_unavailable" })
      ]),
      // A day outside the range is not summed.
      dayOf("2026-10-01", [usage({ jobId: "job_e", day: "2026-10-01", bytes: 99 })])
    ])
    expect(report.totals).toEqual({
      jobs: 4,
      bytes: 10,
      byStatus: { queued: 0, processing: 0, completed: 1, failed: 3, expired: 0, canceled: 0 }
    })
    expect(report.days[0]?.errors).toEqual({ download_failed: 1 })
    expect(Object.keys(report.days[0]?.platforms ?? {})).toEqual(["generic", "vimeo"])
    expect(report.days[0]?.platforms["vimeo"]).toEqual({
      jobs: 1,
      bytes: 10,
      byStatus: { queued: 0, processing: 0, completed: 1, failed: 0, expired: 0, canceled: 0 }
    })
    expect(report.topErrors).toEqual([
      { code: "download_failed", count: 2, exampleJobIds: ["job_c", "job_b"] },
      { code: "media_unavailable", count: 1, exampleJobIds: ["job_d"] }
    ])
  })
})

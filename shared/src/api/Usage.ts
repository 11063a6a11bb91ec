// Extension: the /v1 shape of a project's usage (GET /v1/usage), built from the usage report and the quota standings.
import { Schema } from "effect"
import type { QuotaStanding } from "../domain/admission/Quota.ts"
import type { UsageCounts, UsageReport } from "../domain/usage/UsageReport.ts"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/**
 * The most days one GET /v1/usage covers: a quarter. Each day is one bounded read (counters per status, platform and
 * error code), so a request reads at most this many small documents however busy the project was.
 */
export const MAX_USAGE_DAYS = 92

/** A UTC day as `from` and `to` are written (whether it is a calendar day is judged with the range). */
export const UsageDate = Schema.String.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/u)).annotate({ format: "date" })

export const UsageJobCounts = Schema.Struct({
  total: Count,
  queued: Count,
  processing: Count,
  completed: Count,
  failed: Count.annotate({ description: "Failed for a reason other than a cancel (see errors for the codes)." }),
  expired: Count,
  canceled: Count
}).annotate({ identifier: "UsageJobCounts" })

export const UsagePlatform = Schema.Struct({
  platform: Schema.String,
  jobs: UsageJobCounts,
  bytes_downloaded: Count
}).annotate({ identifier: "UsagePlatform" })

export const UsageDay = Schema.Struct({
  date: Schema.String.annotate({ description: "The UTC day (YYYY-MM-DD) the jobs were queued." }),
  jobs: UsageJobCounts,
  errors: Schema.Record(Schema.String, Count).annotate({ description: "Failed jobs by error code." }),
  bytes_downloaded: Count.annotate({ description: "Size of the files of the day's completed jobs." }),
  platforms: Schema.Array(UsagePlatform)
}).annotate({ identifier: "UsageDay" })

export const UsageQuota = Schema.Struct({
  name: Schema.Literals(["jobs_per_day", "bytes_per_month"]),
  limit: Schema.NullOr(Count).annotate({ description: "null: unlimited." }),
  used: Count.annotate({ description: "Jobs admitted today (UTC) or bytes of jobs completed this month (UTC)." }),
  remaining: Schema.NullOr(Count),
  resets_at: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "UsageQuota" })

export const Usage = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  days: Schema.Array(UsageDay),
  totals: Schema.Struct({ jobs: UsageJobCounts, bytes_downloaded: Count }),
  top_errors: Schema.Array(Schema.Struct({ code: Schema.String, count: Count, example_job_ids: Schema.Array(Schema.String) })).annotate({
    description: "Error codes of the range, most frequent first, each with a few of its jobs."
  }),
  quotas: Schema.Array(UsageQuota)
}).annotate({ identifier: "Usage" })
export type Usage = typeof Usage.Type

const jobCounts = (counts: UsageCounts) => ({ total: counts.jobs, ...counts.byStatus })

export const toUsage = (report: UsageReport, standings: ReadonlyArray<QuotaStanding>): Usage => ({
  from: report.from,
  to: report.to,
  days: report.days.map((day) => ({
    date: day.day,
    jobs: jobCounts(day),
    errors: day.errors,
    bytes_downloaded: day.bytes,
    platforms: Object.entries(day.platforms).map(([platform, counts]) => ({
      platform,
      jobs: jobCounts(counts),
      bytes_downloaded: counts.bytes
    }))
  })),
  totals: { jobs: jobCounts(report.totals), bytes_downloaded: report.totals.bytes },
  top_errors: report.topErrors.map((error) => ({ code: error.code, count: error.count, example_job_ids: error.exampleJobIds })),
  quotas: standings.map((standing) => ({
    name: standing.quota,
    limit: standing.limit,
    used: standing.used,
    remaining: standing.limit === null ? null : Math.max(0, standing.limit - standing.used),
    resets_at: new Date(standing.resetAt).toISOString()
  }))
})

// A project's quotas and what it used of them: jobs per UTC day and downloaded bytes per UTC calendar month.
import { Schema } from "effect"

/** The limits that apply to a project (its own setting, else the server's default); null: unlimited. */
export interface QuotaLimits {
  readonly jobsPerDay: number | null
  readonly bytesPerMonth: number | null
}

export const UNLIMITED: QuotaLimits = { jobsPerDay: null, bytesPerMonth: null }

export const QuotaName = Schema.Literals(["jobs_per_day", "bytes_per_month"])
export type QuotaName = typeof QuotaName.Type

/** What the project used in the current windows, recorded on every admission event (the state is the last event). */
export const QuotaUsage = Schema.Struct({
  /** The UTC day the job count is of, YYYY-MM-DD. */
  day: Schema.String,
  /** Jobs admitted on that day. */
  jobs: Schema.Number,
  /** The UTC month the byte count is of, YYYY-MM. */
  month: Schema.String,
  /** Bytes of the files of jobs completed in that month. */
  bytes: Schema.Number
})
export type QuotaUsage = typeof QuotaUsage.Type

export const NO_USAGE: QuotaUsage = { day: "", jobs: 0, month: "", bytes: 0 }

/** The UTC day of an instant, YYYY-MM-DD. */
export const utcDay = (now: number): string => new Date(now).toISOString().slice(0, 10)

/** The UTC month of an instant, YYYY-MM. */
export const utcMonth = (now: number): string => new Date(now).toISOString().slice(0, 7)

/** When the window of a quota that applies at `now` resets: the next UTC midnight, or the first of the next month. */
export const quotaResetAt = (quota: QuotaName, now: number): number => {
  const date = new Date(now)
  return quota === "jobs_per_day"
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
    : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
}

/** The usage as of `now`: a count of an earlier day or month no longer counts. */
export const usageAt = (usage: QuotaUsage, now: number): QuotaUsage => {
  const day = utcDay(now)
  const month = utcMonth(now)
  return {
    day,
    jobs: usage.day === day ? usage.jobs : 0,
    month,
    bytes: usage.month === month ? usage.bytes : 0
  }
}

/** One quota as a client sees it: its limit, what is used and when it resets. */
export interface QuotaStanding {
  readonly quota: QuotaName
  readonly limit: number | null
  readonly used: number
  readonly resetAt: number
}

export const quotaStandings = (limits: QuotaLimits, usage: QuotaUsage, now: number): ReadonlyArray<QuotaStanding> => {
  const current = usageAt(usage, now)
  return [
    { quota: "jobs_per_day", limit: limits.jobsPerDay, used: current.jobs, resetAt: quotaResetAt("jobs_per_day", now) },
    { quota: "bytes_per_month", limit: limits.bytesPerMonth, used: current.bytes, resetAt: quotaResetAt("bytes_per_month", now) }
  ]
}

/** The first quota used up at `now`, or null: a new job would be over it. */
export const exhaustedQuota = (limits: QuotaLimits, usage: QuotaUsage, now: number): QuotaStanding | null =>
  quotaStandings(limits, usage, now).find((standing) => standing.limit !== null && standing.used >= standing.limit) ?? null

/** Bytes a new download may still use this month; null: unlimited. */
export const bytesLeft = (limits: QuotaLimits, usage: QuotaUsage, now: number): number | null =>
  limits.bytesPerMonth === null ? null : Math.max(0, limits.bytesPerMonth - usageAt(usage, now).bytes)

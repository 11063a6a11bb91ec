// A project's usage per day as GET /v1/usage and the dashboard show it, summed from its jobs' usage (pure).
import type { JobUsage, UsageStatus } from "./JobUsage.ts"

/** Jobs of one day or platform by status, with the bytes their files took. */
export interface UsageCounts {
  readonly jobs: number
  readonly byStatus: Readonly<Record<UsageStatus, number>>
  readonly bytes: number
}

export interface UsageDay extends UsageCounts {
  readonly day: string
  /** Failed jobs by error code. */
  readonly errors: Readonly<Record<string, number>>
  readonly platforms: Readonly<Record<string, UsageCounts>>
}

export interface ErrorSummary {
  readonly code: string
  readonly count: number
  /** A few of the failed jobs, newest days first, to look at. */
  readonly exampleJobIds: ReadonlyArray<string>
}

export interface UsageReport {
  readonly from: string
  readonly to: string
  readonly days: ReadonlyArray<UsageDay>
  readonly totals: UsageCounts
  /** Error codes of the range, most frequent first. */
  readonly topErrors: ReadonlyArray<ErrorSummary>
}

const EXAMPLES_PER_CODE = 3
const DAY_MS = 86_400_000

const noCounts = (): { jobs: number; byStatus: Record<UsageStatus, number>; bytes: number } => ({
  jobs: 0,
  byStatus: { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0 },
  bytes: 0
})

const add = (counts: ReturnType<typeof noCounts>, usage: JobUsage) => {
  counts.jobs++
  counts.byStatus[usage.status]++
  counts.bytes += usage.bytes
}

/** Every UTC day from `from` to `to` (YYYY-MM-DD, inclusive). */
export const daysBetween = (from: string, to: string): ReadonlyArray<string> => {
  const days: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10))
  }
  return days
}

/** Sums the jobs' usage into days (every day of the range, empty ones too), totals and the top error codes. */
export const usageReport = (from: string, to: string, jobs: ReadonlyArray<JobUsage>): UsageReport => {
  const days = new Map(
    daysBetween(from, to).map((day) => [
      day,
      { counts: noCounts(), errors: {} as Record<string, number>, platforms: new Map<string, ReturnType<typeof noCounts>>() }
    ])
  )
  const totals = noCounts()
  const errors = new Map<string, { count: number; examples: Array<{ jobId: string; day: string }> }>()
  for (const usage of jobs) {
    const day = days.get(usage.day)
    if (day === undefined) continue
    add(day.counts, usage)
    add(totals, usage)
    const platform = day.platforms.get(usage.platform) ?? noCounts()
    day.platforms.set(usage.platform, platform)
    add(platform, usage)
    if (usage.errorCode !== null) {
      day.errors[usage.errorCode] = (day.errors[usage.errorCode] ?? 0) + 1
      const summary = errors.get(usage.errorCode) ?? { count: 0, examples: [] }
      summary.count++
      summary.examples.push({ jobId: usage.jobId, day: usage.day })
      errors.set(usage.errorCode, summary)
    }
  }
  return {
    from,
    to,
    days: [...days].map(([day, { counts, errors: byCode, platforms }]) => ({
      day,
      ...counts,
      errors: byCode,
      platforms: Object.fromEntries([...platforms].sort(([a], [b]) => a.localeCompare(b)))
    })),
    totals,
    topErrors: [...errors]
      .map(([code, { count, examples }]) => ({
        code,
        count,
        exampleJobIds: examples
          .sort((a, b) => b.day.localeCompare(a.day) || a.jobId.localeCompare(b.jobId))
          .slice(0, EXAMPLES_PER_CODE)
          .map((example) => example.jobId)
      }))
      .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
  }
}

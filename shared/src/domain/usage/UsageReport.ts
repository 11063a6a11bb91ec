// A project's usage per day as GET /v1/usage and the dashboard show it, summed from its days' counters (pure).
import type { UsageStatus } from "./JobUsage.ts"
import { EXAMPLES_PER_CODE, type PlatformCounts, type UsageDayCounts } from "./UsageDayCounts.ts"

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

const DAY_MS = 86_400_000

type MutableCounts = { jobs: number; byStatus: Record<UsageStatus, number>; bytes: number }

const noCounts = (): MutableCounts => ({
  jobs: 0,
  byStatus: { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0 },
  bytes: 0
})

const STATUSES: ReadonlyArray<UsageStatus> = ["queued", "processing", "completed", "failed", "expired", "canceled"]

const add = (counts: MutableCounts, platform: PlatformCounts) => {
  for (const status of STATUSES) {
    counts.byStatus[status] += platform[status]
    counts.jobs += platform[status]
  }
  counts.bytes += platform.bytes
}

/** Every UTC day from `from` to `to` (YYYY-MM-DD, inclusive). */
export const daysBetween = (from: string, to: string): ReadonlyArray<string> => {
  const days: Array<string> = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10))
  }
  return days
}

/**
 * Sums the days' counters into days (every day of the range, empty ones too), totals and the top error codes, whose
 * examples are the newest days' latest failures. Reads as many counters as the range has days, whatever their jobs.
 */
export const usageReport = (from: string, to: string, counted: ReadonlyArray<UsageDayCounts>): UsageReport => {
  const byDay = new Map(counted.map((day) => [day.day, day]))
  const totals = noCounts()
  const errors = new Map<string, { count: number; examples: Array<string> }>()
  const days = daysBetween(from, to).map((day): UsageDay => {
    const counts = byDay.get(day)
    const sum = noCounts()
    const platforms = Object.entries(counts?.platforms ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([platform, platformCounts]) => {
        const one = noCounts()
        add(one, platformCounts)
        add(sum, platformCounts)
        add(totals, platformCounts)
        return [platform, one] as const
      })
    return { day, ...sum, errors: { ...counts?.errors }, platforms: Object.fromEntries(platforms) }
  })
  // Newest day first, so the examples are the latest failures of the range.
  for (const day of [...days].reverse()) {
    for (const [code, count] of Object.entries(day.errors)) {
      const summary = errors.get(code) ?? { count: 0, examples: [] }
      summary.count += count
      summary.examples.push(...(byDay.get(day.day)?.examples[code] ?? []).map((example) => example.jobId))
      errors.set(code, summary)
    }
  }
  return {
    from,
    to,
    days,
    totals,
    topErrors: [...errors]
      .map(([code, { count, examples }]) => ({ code, count, exampleJobIds: examples.slice(0, EXAMPLES_PER_CODE) }))
      .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code))
  }
}

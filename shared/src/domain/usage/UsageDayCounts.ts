// A project's usage of one UTC day as counters (jobs by platform and status, bytes, failures by error code, a few
// example jobs per code), and how one job's change moves them: what a job adds is taken out again before its new
// status is added, so the counters stay the sum of the jobs' current usage whatever the day's size. Pure.
import { Schema } from "effect"
import type { JobUsage, UsageStatus } from "./JobUsage.ts"

const Count = Schema.Number

export const PlatformCounts = Schema.Struct({
  queued: Count,
  processing: Count,
  completed: Count,
  failed: Count,
  expired: Count,
  canceled: Count,
  /** Size of the files of the platform's completed jobs of the day. */
  bytes: Count
})
export type PlatformCounts = typeof PlatformCounts.Type

/** A failed job named as an example of its error code, with the stream sequence of the event that failed it. */
export const ErrorExample = Schema.Struct({ jobId: Schema.String, seq: Schema.Number })
export type ErrorExample = typeof ErrorExample.Type

export const UsageDayCounts = Schema.Struct({
  projectId: Schema.String,
  /** The UTC day the jobs were queued, YYYY-MM-DD. */
  day: Schema.String,
  platforms: Schema.Record(Schema.String, PlatformCounts),
  /** Failed jobs by error code. */
  errors: Schema.Record(Schema.String, Count),
  /**
   * Up to EXAMPLES_PER_CODE failed jobs per error code, the latest (by stream sequence) first: a hint to look at, not
   * part of the exact counts (a job that stops failing leaves it, and which others replace it depends on what was seen).
   */
  examples: Schema.Record(Schema.String, Schema.Array(ErrorExample))
})
export type UsageDayCounts = typeof UsageDayCounts.Type

export const EXAMPLES_PER_CODE = 3

export const noUsage = (projectId: string, day: string): UsageDayCounts => ({ projectId, day, platforms: {}, errors: {}, examples: {} })

const noPlatformCounts: PlatformCounts = { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0, bytes: 0 }

const isEmpty = (counts: PlatformCounts) => Object.values(counts).every((value) => value === 0)

/** `counts` with one job of `status` (and its bytes) added (`sign` 1) or taken out (-1). */
const moved = (counts: PlatformCounts, status: UsageStatus, bytes: number, sign: 1 | -1): PlatformCounts => ({
  ...counts,
  [status]: counts[status] + sign,
  bytes: counts.bytes + sign * bytes
})

/**
 * The day's counters once the job's usage went from `before` (what the counters hold of it; null: nothing) to
 * `after`. Platforms and codes that drop to nothing are removed, so a day's counters are bounded by the platforms and
 * error codes that occur, never by its jobs; keys are kept in order, so the same jobs give the same document.
 */
export const withJobChange = (day: UsageDayCounts, before: JobUsage | null, after: JobUsage | null): UsageDayCounts => {
  const platforms: Record<string, PlatformCounts> = { ...day.platforms }
  const errors: Record<string, number> = { ...day.errors }
  const examples: Record<string, ReadonlyArray<ErrorExample>> = { ...day.examples }
  const change = (usage: JobUsage, sign: 1 | -1) => {
    const counts = moved(platforms[usage.platform] ?? noPlatformCounts, usage.status, usage.bytes, sign)
    if (isEmpty(counts)) delete platforms[usage.platform]
    else platforms[usage.platform] = counts
    if (usage.errorCode === null) return
    const count = (errors[usage.errorCode] ?? 0) + sign
    if (count === 0) delete errors[usage.errorCode]
    else errors[usage.errorCode] = count
  }
  if (before !== null) change(before, -1)
  if (after !== null) change(after, 1)
  // A job that stopped failing with a code is no example of it; one that started is its newest.
  if (before?.errorCode != null && before.errorCode !== after?.errorCode) {
    const left = (examples[before.errorCode] ?? []).filter((example) => example.jobId !== before.jobId)
    if (left.length === 0) delete examples[before.errorCode]
    else examples[before.errorCode] = left
  }
  if (after?.errorCode != null && after.errorCode !== before?.errorCode) {
    const others = (examples[after.errorCode] ?? []).filter((example) => example.jobId !== after.jobId)
    examples[after.errorCode] = [{ jobId: after.jobId, seq: after.lastSeq }, ...others]
      .sort((a, b) => b.seq - a.seq)
      .slice(0, EXAMPLES_PER_CODE)
  }
  return { ...day, platforms: byKey(platforms), errors: byKey(errors), examples: byKey(examples) }
}

/**
 * The record with its keys in order: the counters are the same document whatever order the day's changes came in (a
 * replay on several lanes writes what the live projection wrote, byte for byte).
 */
const byKey = <A>(record: Readonly<Record<string, A>>): Record<string, A> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

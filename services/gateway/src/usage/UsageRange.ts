// The days GET /v1/usage covers: `from` and `to` as YYYY-MM-DD (UTC), by default the last 30 days up to today. Pure.
import { MAX_USAGE_DAYS } from "@mds/shared/api/Usage"
import { utcDay } from "@mds/shared/domain/admission/Quota"

export const DEFAULT_DAYS = 30
const DAY_MS = 86_400_000

export interface UsageRange {
  readonly from: string
  readonly to: string
}

/** Epoch ms of a real calendar day written YYYY-MM-DD, or null (2026-02-30 is not one). */
const dayStart = (text: string): number | null => {
  if (!/^\d{4}-\d{2}-\d{2}$/u.test(text)) return null
  const ms = Date.parse(`${text}T00:00:00Z`)
  return Number.isNaN(ms) || utcDay(ms) !== text ? null : ms
}

/**
 * Why the range cannot be served, naming the parameter: `malformed` when a value is not written YYYY-MM-DD (the
 * request does not match the endpoint), else it is written so but is no calendar day or no range served.
 */
export interface UsageRangeRefused {
  readonly malformed: boolean
  readonly message: string
}

const isWrittenAsDay = (raw: unknown): raw is string => typeof raw === "string" && /^\d{4}-\d{2}-\d{2}$/u.test(raw)

/** The range asked for, or why it is refused. */
export const usageRange = (query: { readonly from?: unknown; readonly to?: unknown }, now: number): UsageRange | UsageRangeRefused => {
  const parse = (name: "from" | "to", raw: unknown): number | UsageRangeRefused | undefined => {
    if (raw === undefined) return undefined
    if (!isWrittenAsDay(raw)) return { malformed: true, message: `${name}: must be a date written YYYY-MM-DD.` }
    return dayStart(raw) ?? { malformed: false, message: `${name}: ${raw} is not a calendar day.` }
  }
  const to = parse("to", query.to) ?? dayStart(defaultUsageRange(now).to)!
  if (typeof to !== "number") return to
  const from = parse("from", query.from) ?? to - (DEFAULT_DAYS - 1) * DAY_MS
  if (typeof from !== "number") return from
  if (from > to) return { malformed: false, message: "from: must not be after to." }
  if ((to - from) / DAY_MS + 1 > MAX_USAGE_DAYS) {
    return { malformed: false, message: `from: the range may span at most ${MAX_USAGE_DAYS} days.` }
  }
  return { from: utcDay(from), to: utcDay(to) }
}

/** The range served when none is asked for: the last 30 days up to today. */
export const defaultUsageRange = (now: number): UsageRange => {
  const to = dayStart(utcDay(now))!
  return { from: utcDay(to - (DEFAULT_DAYS - 1) * DAY_MS), to: utcDay(to) }
}

// The days GET /v1/usage covers: `from` and `to` as YYYY-MM-DD (UTC), by default the last 30 days up to today. Pure.
import { utcDay } from "@mds/shared/domain/admission/Quota"

export const DEFAULT_DAYS = 30
export const MAX_DAYS = 366
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

/** The range asked for, or a message naming the parameter that is wrong. */
export const usageRange = (query: { readonly from?: unknown; readonly to?: unknown }, now: number): UsageRange | string => {
  const parse = (name: "from" | "to", raw: unknown): number | string | undefined => {
    if (raw === undefined) return undefined
    const ms = typeof raw === "string" ? dayStart(raw) : null
    return ms ?? `${name}: must be a date written YYYY-MM-DD.`
  }
  const to = parse("to", query.to) ?? dayStart(utcDay(now))!
  if (typeof to === "string") return to
  const from = parse("from", query.from) ?? to - (DEFAULT_DAYS - 1) * DAY_MS
  if (typeof from === "string") return from
  if (from > to) return "from: must not be after to."
  if ((to - from) / DAY_MS + 1 > MAX_DAYS) return `from: the range may span at most ${MAX_DAYS} days.`
  return { from: utcDay(from), to: utcDay(to) }
}

// Which platform-health outcome an extraction result is: blocks (429, bot checks) open the breaker; problems of one
// media item (private, removed, wrong format) say nothing about the platform and are not counted. Pure.
import type { PlatformOutcome } from "./PlatformHealthEvent.ts"

const BLOCKED =
  /HTTP Error 429|Too Many Requests|rate[- ]?limit|confirm (that )?you(['’]| a)re not a (bot|robot)|bot check|anti-bot challenge|captcha|unusual traffic/i

export const looksBlocked = (message: string): boolean => BLOCKED.test(message)

/** Error codes that describe the platform's behaviour rather than the requested item. */
const PLATFORM_FAILURES = new Set(["download_failed", "extraction_failed", "extraction_timeout", "internal_error"])

/** null: nothing to record (the failure is about the item or the request, not the platform). */
export const platformOutcomeOf = (failure: { readonly code: string; readonly message: string } | null): PlatformOutcome | null => {
  if (failure === null) return "ok"
  if (looksBlocked(failure.message)) return "blocked"
  return PLATFORM_FAILURES.has(failure.code) ? "failed" : null
}

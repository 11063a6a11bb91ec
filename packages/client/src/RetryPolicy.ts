// When the client retries a request and how long it waits: Retry-After first, else capped exponential backoff.

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  /** A Retry-After longer than this is not waited for: the error is returned instead. */
  readonly maxRetryAfterMs: number
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000
}

/** Statuses that say "try again later": the request was not carried out. */
export const isRetryableStatus = (status: number): boolean => status === 429 || status === 503

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3); null when absent or unreadable. */
export const parseRetryAfter = (value: string | null, now: number): number | null => {
  if (value === null) return null
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  // An HTTP date names its weekday and month; Date.parse alone would also accept "-3" as a year.
  const date = /^[A-Za-z]{3}, /.test(trimmed) ? Date.parse(trimmed) : Number.NaN
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/**
 * The wait before retry number `retry` (1-based), or null to give up. `random` in [0, 1) spreads clients apart
 * (full jitter on the upper half) so that they do not come back in lockstep.
 */
export const retryDelay = (policy: RetryPolicy, retry: number, retryAfterMs: number | null, random: number): number | null => {
  if (retry > policy.maxRetries) return null
  if (retryAfterMs !== null) return retryAfterMs > policy.maxRetryAfterMs ? null : retryAfterMs
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random)
}

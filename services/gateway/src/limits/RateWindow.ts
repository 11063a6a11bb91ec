// A fixed-window request counter per key, as pure functions: what one more request does to the window.

export interface RateWindow {
  readonly startedAt: number
  readonly count: number
}

export interface RatePolicy {
  /** Requests allowed per window; 0 means unlimited. */
  readonly limit: number
  readonly windowMs: number
}

export interface RateDecision {
  readonly allowed: boolean
  readonly window: RateWindow
  readonly limit: number
  readonly remaining: number
  /** Whole seconds until the window resets, at least 1 (RateLimit-Reset, Retry-After). */
  readonly resetSeconds: number
}

/**
 * Counts a request made at `now`. A refused request is not counted, so a client that waits for Retry-After is
 * not held back further by the requests it made while it was limited.
 */
export const takeRequest = (policy: RatePolicy, window: RateWindow | undefined, now: number): RateDecision => {
  const current =
    window === undefined || now >= window.startedAt + policy.windowMs || now < window.startedAt ? { startedAt: now, count: 0 } : window
  const resetSeconds = Math.max(1, Math.ceil((current.startedAt + policy.windowMs - now) / 1000))
  if (current.count >= policy.limit) {
    return { allowed: false, window: current, limit: policy.limit, remaining: 0, resetSeconds }
  }
  const next = { startedAt: current.startedAt, count: current.count + 1 }
  return { allowed: true, window: next, limit: policy.limit, remaining: policy.limit - next.count, resetSeconds }
}

/** The RateLimit-* headers of the IETF httpapi draft (and the policy in its structured form). */
export const rateLimitHeaders = (policy: RatePolicy, decision: RateDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds),
  "ratelimit-policy": `${policy.limit};w=${Math.round(policy.windowMs / 1000)}`
})

// Counts failed attempts (API keys, dashboard sign-ins) per subject in fixed windows, and says how long a subject must wait.
import { type RatePolicy, type RateWindow, takeRequest } from "./RateWindow.ts"

export interface FailureThrottle {
  /** Whole seconds until `subject` may fail again (Retry-After), or 0 while it is under the limit. */
  retryAfter(subject: string, now: number): number
  /** Counts one failure of `subject` at `now`. */
  record(subject: string, now: number): void
}

/** Windows of subjects that went quiet are dropped once there are this many, so memory follows the active ones. */
const SWEEP_THRESHOLD = 10_000

/** `policy.limit` failures per window and subject; a limit of 0 turns the throttle off. */
export const makeFailureThrottle = (policy: RatePolicy): FailureThrottle => {
  const windows = new Map<string, RateWindow>()
  const current = (subject: string, now: number) => {
    const window = windows.get(subject)
    return window === undefined || now >= window.startedAt + policy.windowMs || now < window.startedAt ? undefined : window
  }
  return {
    retryAfter: (subject, now) => {
      if (policy.limit <= 0) return 0
      const window = current(subject, now)
      if (window === undefined || window.count < policy.limit) return 0
      return Math.max(1, Math.ceil((window.startedAt + policy.windowMs - now) / 1000))
    },
    record: (subject, now) => {
      if (policy.limit <= 0) return
      if (windows.size >= SWEEP_THRESHOLD) {
        for (const [key, window] of windows) if (now >= window.startedAt + policy.windowMs) windows.delete(key)
      }
      windows.set(subject, takeRequest(policy, windows.get(subject), now).window)
    }
  }
}

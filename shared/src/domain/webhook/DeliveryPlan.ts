// What happens after one delivery attempt: delivered, retried after a growing delay, or given up. Pure.
import type { DeliveryOutcome } from "./WebhookEvent.ts"

export interface RetrySchedule {
  readonly maxAttempts: number
  /** The wait after the first failed attempt; each later wait is `factor` times the previous one, up to `maxDelayMs`. */
  readonly baseDelayMs: number
  readonly factor: number
  readonly maxDelayMs: number
}

/** 10 s, 1 min, 6 min, 36 min, 1 h: about two hours of retries over six attempts. */
export const defaultRetrySchedule: RetrySchedule = { maxAttempts: 6, baseDelayMs: 10_000, factor: 6, maxDelayMs: 3_600_000 }

/** Only a 2xx answer counts as delivered (redirects are not followed: the URL is the contract). */
export const isDelivered = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300

export const retryDelayAfter = (schedule: RetrySchedule, attempt: number): number =>
  Math.min(schedule.maxDelayMs, schedule.baseDelayMs * schedule.factor ** (attempt - 1))

export interface AttemptVerdict {
  readonly outcome: DeliveryOutcome
  /** The wait before the next attempt, when there is one. */
  readonly retryInMs: number | null
}

export const judgeAttempt = (schedule: RetrySchedule, attempt: number, statusCode: number | null): AttemptVerdict => {
  if (isDelivered(statusCode)) return { outcome: "delivered", retryInMs: null }
  if (attempt >= schedule.maxAttempts) return { outcome: "failed", retryInMs: null }
  return { outcome: "will_retry", retryInMs: retryDelayAfter(schedule, attempt) }
}

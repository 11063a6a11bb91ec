// Which /v1 error codes are worth retrying (the same request may succeed later), and after how long if we know.
import type { ApiErrorCode } from "./ErrorCodes.ts"

/** Dependencies down, limits that clear with time, extraction that may work on a second try. */
const RETRYABLE: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>([
  "concurrency_limit_exceeded",
  "rate_limit_exceeded",
  "polling_too_fast",
  "too_many_streams",
  "internal_error",
  "extraction_failed",
  "service_unavailable",
  "extraction_timeout",
  "platform_paused",
  "idempotency_key_in_use"
])

export const isRetryableError = (code: ApiErrorCode): boolean => RETRYABLE.has(code)

export interface RetryHints {
  readonly retryable: boolean
  /** Whole seconds, when the response also carries Retry-After. */
  readonly retry_after?: number
}

export const retryHints = (code: ApiErrorCode, headers: Readonly<Record<string, string>> = {}): RetryHints => {
  const after = Number(headers["retry-after"])
  return Number.isInteger(after) && after > 0
    ? { retryable: isRetryableError(code), retry_after: after }
    : { retryable: isRetryableError(code) }
}

import { describe, expect, it } from "vitest"
import { apiErrorCodes } from "./ErrorCodes.ts"
import { retryHints } from "./RetryableErrors.ts"

describe("retryHints", () => {
  it("limits and unavailable dependencies are retryable; client mistakes and permanent answers are not", () => {
    const retryable = apiErrorCodes.filter((code) => retryHints(code).retryable)
    expect(retryable.sort()).toEqual([
      "concurrency_limit_exceeded",
      "extraction_failed",
      "extraction_timeout",
      "idempotency_key_in_use",
      "internal_error",
      "platform_paused",
      "polling_too_fast",
      "rate_limit_exceeded",
      "service_unavailable",
      "too_many_streams"
    ])
  })
  it("carries retry_after when the response has a Retry-After header", () => {
    expect(retryHints("rate_limit_exceeded", { "retry-after": "17" })).toEqual({ retryable: true, retry_after: 17 })
    expect(retryHints("media_unavailable", {})).toEqual({ retryable: false })
    expect(retryHints("service_unavailable", { "retry-after": "soon" })).toEqual({ retryable: true })
  })
})

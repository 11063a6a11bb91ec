// Given a server's answer, then whether and how long the client waits before retrying.
import { describe, expect, it } from "vitest"
import { defaultRetryPolicy, isRetryableStatus, parseRetryAfter, retryDelay } from "./RetryPolicy.ts"

const NOW = Date.parse("2026-01-02T03:04:05Z")

describe("parseRetryAfter", () => {
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    expect(parseRetryAfter("7", NOW)).toBe(7000)
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0)
    expect(parseRetryAfter("Fri, 02 Jan 2026 03:04:15 GMT", NOW)).toBe(10_000)
    expect(parseRetryAfter("Fri, 02 Jan 2026 03:00:00 GMT", NOW)).toBe(0)
    expect(parseRetryAfter(null, NOW)).toBeNull()
    expect(parseRetryAfter("soon", NOW)).toBeNull()
    expect(parseRetryAfter("-3", NOW)).toBeNull()
  })
})

describe("retryDelay", () => {
  it("waits exactly what Retry-After says, unless that is longer than the policy accepts", () => {
    expect(retryDelay(defaultRetryPolicy, 1, 3000, 0.9)).toBe(3000)
    expect(retryDelay(defaultRetryPolicy, 1, 61_000, 0.9)).toBeNull()
  })

  it("without Retry-After backs off exponentially with jitter in the upper half, capped", () => {
    const policy = { ...defaultRetryPolicy, baseDelayMs: 1000, maxDelayMs: 4000, maxRetries: 5 }
    expect(retryDelay(policy, 1, null, 0)).toBe(500)
    expect(retryDelay(policy, 1, null, 0.998)).toBe(999)
    expect(retryDelay(policy, 2, null, 0)).toBe(1000)
    expect(retryDelay(policy, 3, null, 1)).toBe(4000)
    expect(retryDelay(policy, 5, null, 1)).toBe(4000)
  })

  it("gives up after maxRetries", () => {
    expect(retryDelay({ ...defaultRetryPolicy, maxRetries: 2 }, 3, null, 0.5)).toBeNull()
    expect(retryDelay({ ...defaultRetryPolicy, maxRetries: 2 }, 3, 1000, 0.5)).toBeNull()
  })

  it("only 429 and 503 are worth retrying", () => {
    expect([400, 401, 404, 422, 429, 500, 502, 503, 504].filter(isRetryableStatus)).toEqual([429, 503])
  })
})

// Given failures of subjects over time, then when each subject is throttled and for how long.
import { describe, expect, it } from "vitest"
import { makeFailureThrottle } from "./FailureThrottle.ts"

describe("FailureThrottle", () => {
  it("throttles a subject after `limit` failures until its window ends; other subjects are unaffected", () => {
    const throttle = makeFailureThrottle({ limit: 3, windowMs: 60_000 })
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfter("addr:1", 1000 + i)).toBe(0)
      throttle.record("addr:1", 1000 + i)
    }
    expect(throttle.retryAfter("addr:1", 2000)).toBe(59)
    expect(throttle.retryAfter("addr:2", 2000)).toBe(0)
    expect(throttle.retryAfter("addr:1", 61_000)).toBe(0)
  })

  it("a limit of 0 never throttles", () => {
    const throttle = makeFailureThrottle({ limit: 0, windowMs: 60_000 })
    for (let i = 0; i < 100; i++) throttle.record("x", i)
    expect(throttle.retryAfter("x", 100)).toBe(0)
  })
})

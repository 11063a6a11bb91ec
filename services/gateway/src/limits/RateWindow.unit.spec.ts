// Given a key's window and a request time, then whether it passes and what the headers say.
import { describe, expect, it } from "vitest"
import { rateLimitHeaders, takeRequest } from "./RateWindow.ts"

const policy = { limit: 3, windowMs: 60_000 }

describe("takeRequest", () => {
  it("opens a window on the first request and counts down the remaining requests", () => {
    const first = takeRequest(policy, undefined, 1_000)
    expect(first).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60, window: { startedAt: 1_000, count: 1 } })
    const second = takeRequest(policy, first.window, 31_000)
    expect(second).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 30 })
  })

  it("refuses the request over the limit until the window ends, without counting refused ones", () => {
    let window = takeRequest(policy, undefined, 0).window
    window = takeRequest(policy, window, 1).window
    window = takeRequest(policy, window, 2).window
    const refused = takeRequest(policy, window, 59_500)
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 })
    expect(refused.window.count).toBe(3)
    expect(takeRequest(policy, refused.window, 60_000)).toMatchObject({ allowed: true, remaining: 2, window: { startedAt: 60_000 } })
  })

  it("starts over when the clock went backwards", () => {
    const window = { startedAt: 100_000, count: 3 }
    expect(takeRequest(policy, window, 50_000).allowed).toBe(true)
  })

  it("never says to retry in less than a second", () => {
    const full = { startedAt: 0, count: 3 }
    expect(takeRequest(policy, full, 59_999).resetSeconds).toBe(1)
  })
})

describe("rateLimitHeaders", () => {
  it("states limit, remaining, reset and the policy", () => {
    const decision = takeRequest(policy, undefined, 0)
    expect(rateLimitHeaders(policy, decision)).toEqual({
      "ratelimit-limit": "3",
      "ratelimit-remaining": "2",
      "ratelimit-reset": "60",
      "ratelimit-policy": "3;w=60"
    })
  })
})

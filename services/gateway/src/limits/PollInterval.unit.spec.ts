// Given the previous poll of a job and the time now, then whether this poll is too fast.
import { describe, expect, it } from "vitest"
import { judgePoll } from "./PollInterval.ts"

const policy = { minIntervalMs: 2_000, toleranceMs: 200 }

describe("judgePoll", () => {
  it("the first poll of a job is on time", () => {
    expect(judgePoll(policy, undefined, 5_000)).toEqual({ _tag: "OnTime" })
  })
  it("a poll 2 s after the last one, or slightly early within the tolerance, is on time", () => {
    expect(judgePoll(policy, 10_000, 12_000)).toEqual({ _tag: "OnTime" })
    expect(judgePoll(policy, 10_000, 11_800)).toEqual({ _tag: "OnTime" })
  })
  it("a faster poll is too fast, with the whole seconds left to wait", () => {
    expect(judgePoll(policy, 10_000, 10_100)).toEqual({ _tag: "TooFast", retryAfterSeconds: 2 })
    expect(judgePoll(policy, 10_000, 11_500)).toEqual({ _tag: "TooFast", retryAfterSeconds: 1 })
  })
  it("an interval of 0 turns the check off, and a clock that went backwards never blocks", () => {
    expect(judgePoll({ minIntervalMs: 0, toleranceMs: 0 }, 10_000, 10_001)).toEqual({ _tag: "OnTime" })
    expect(judgePoll(policy, 10_000, 9_000)).toEqual({ _tag: "OnTime" })
  })
})

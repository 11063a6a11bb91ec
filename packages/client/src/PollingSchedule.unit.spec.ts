// Given successive polls of a job, then the waits between them stay within the API's 2-5 s rule.
import { describe, expect, it } from "vitest"
import { MAX_POLL_MS, MIN_POLL_MS, nextPollDelay } from "./PollingSchedule.ts"

describe("nextPollDelay", () => {
  it("starts at 2 s, slows by 1 s per unchanged poll up to 5 s, and returns to 2 s when the job moves", () => {
    const changes = [true, false, false, false, false, false, true, false]
    const delays: Array<number> = []
    let previous: number | null = null
    for (const changed of changes) {
      previous = nextPollDelay(previous, changed)
      delays.push(previous)
    }
    expect(delays).toEqual([2000, 3000, 4000, 5000, 5000, 5000, 2000, 3000])
  })

  it("never leaves 2-5 s whatever it is given", () => {
    for (const previous of [0, 1, 1999, 4500, 10_000]) {
      for (const changed of [true, false]) {
        const delay = nextPollDelay(previous, changed)
        expect(delay).toBeGreaterThanOrEqual(MIN_POLL_MS)
        expect(delay).toBeLessThanOrEqual(MAX_POLL_MS)
      }
    }
  })
})

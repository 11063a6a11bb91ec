import { describe, expect, it } from "vitest"
import { initialProgressThrottle, jobPercent, nextProgressReport } from "./ProgressThrottle.ts"

describe("nextProgressReport", () => {
  it("reports the first rise at once, as a whole percent scaled below 100", () => {
    expect(nextProgressReport(initialProgressThrottle, 50.7, 0)).toBe(jobPercent(50.7))
    expect(jobPercent(50.7)).toBe(48)
    expect(jobPercent(100)).toBe(95)
  })
  it("stays quiet within a second of the last report", () => {
    expect(nextProgressReport({ reported: 10, reportedAt: 1000 }, 80, 1500)).toBeNull()
    expect(nextProgressReport({ reported: 10, reportedAt: 1000 }, 80, 2000)).toBe(76)
  })
  it("never reports a value that did not rise (a second stream starting at 0, a repeat)", () => {
    expect(nextProgressReport({ reported: 60, reportedAt: 0 }, 5, 10_000)).toBeNull()
    expect(nextProgressReport({ reported: 47, reportedAt: 0 }, 50, 10_000)).toBeNull()
  })
})

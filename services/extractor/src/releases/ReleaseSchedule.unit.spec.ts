import { describe, expect, it } from "vitest"
import { initialFollowState, nextFollowStep } from "./ReleaseSchedule.ts"

const HOUR = 3_600_000

describe("nextFollowStep", () => {
  it("does nothing without a choice while auto-update is off", () => {
    const step = nextFollowStep(initialFollowState, null, "off", HOUR, 1_000)
    expect(step.apply).toBeNull()
    expect(nextFollowStep(step.state, null, "off", HOUR, 10 * HOUR).apply).toBeNull()
  })

  it("acts on an exact version once, and on the next choice at once", () => {
    const first = nextFollowStep(initialFollowState, { seq: 5, choice: "2026.10.21" }, "stable", HOUR, 1_000)
    expect(first.apply).toBe("2026.10.21")
    expect(nextFollowStep(first.state, { seq: 5, choice: "2026.10.21" }, "stable", HOUR, 10 * HOUR).apply).toBeNull()
    expect(nextFollowStep(first.state, { seq: 6, choice: "2026.10.26" }, "stable", HOUR, 1_001).apply).toBe("2026.10.26")
  })

  it("looks a channel up again once the interval has passed, the operator's or auto-update's", () => {
    const chosen = nextFollowStep(initialFollowState, { seq: 2, choice: "nightly" }, "off", HOUR, 1_000)
    expect(chosen.apply).toBe("nightly")
    expect(nextFollowStep(chosen.state, { seq: 2, choice: "nightly" }, "off", HOUR, 1_000 + HOUR - 1).apply).toBeNull()
    expect(nextFollowStep(chosen.state, { seq: 2, choice: "nightly" }, "off", HOUR, 1_000 + HOUR).apply).toBe("nightly")

    const auto = nextFollowStep(initialFollowState, null, "stable", HOUR, 1_000)
    expect(auto.apply).toBe("stable")
    expect(nextFollowStep(auto.state, null, "stable", HOUR, 2_000).apply).toBeNull()
    expect(nextFollowStep(auto.state, null, "stable", HOUR, 1_000 + HOUR).apply).toBe("stable")
  })
})

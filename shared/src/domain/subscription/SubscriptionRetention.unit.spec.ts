import { describe, expect, it } from "vitest"
import { entriesPastRetention, LIBRARY_MAX_ENTRIES } from "./SubscriptionRetention.ts"

const DAY = 86_400_000
const delivered = [
  { jobId: "job_a", deliveredAt: 1 * DAY },
  { jobId: "job_c", deliveredAt: 3 * DAY },
  { jobId: "job_b", deliveredAt: 2 * DAY },
  { jobId: "job_d", deliveredAt: 3 * DAY }
]

describe("entriesPastRetention", () => {
  it("keep_last lets go of all but the newest N, the same ones every round", () => {
    expect(entriesPastRetention(delivered, { keepLast: 2 }, 10 * DAY)).toEqual(["job_b", "job_a"])
    expect(entriesPastRetention(delivered, { keepLast: 3 }, 10 * DAY)).toEqual(["job_a"])
    expect(entriesPastRetention(delivered, { keepLast: 4 }, 10 * DAY)).toEqual([])
  })

  it("keep_days lets go of what was delivered before the window", () => {
    expect(entriesPastRetention(delivered, { keepDays: 2 }, 3.5 * DAY)).toEqual(["job_a"])
    expect([...entriesPastRetention(delivered, { keepDays: 1 }, 4 * DAY)].sort()).toEqual(["job_a", "job_b"])
  })

  it("keeps at most LIBRARY_MAX_ENTRIES whatever the rule: a keep_days window and a keep_last stored before the bound", () => {
    const many = Array.from({ length: LIBRARY_MAX_ENTRIES + 2 }, (_, i) => ({
      jobId: `job_${String(i).padStart(5, "0")}`,
      deliveredAt: DAY + i
    }))
    expect(entriesPastRetention(many, { keepDays: 30 }, 2 * DAY)).toEqual(["job_00001", "job_00000"])
    expect(entriesPastRetention(many, { keepLast: 5_000 }, 2 * DAY)).toEqual(["job_00001", "job_00000"])
  })
})

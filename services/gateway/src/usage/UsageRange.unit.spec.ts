// The days GET /v1/usage covers, and the dates it refuses.
import { describe, expect, it } from "vitest"
import { usageRange } from "./UsageRange.ts"

const NOW = Date.UTC(2026, 10, 26, 15)

describe("usageRange", () => {
  it("by default the last 30 days up to today (UTC)", () => expect(usageRange({}, NOW)).toEqual({ from: "2026-10-28", to: "2026-11-26" }))
  it("30 days up to a given end", () => expect(usageRange({ to: "2026-03-01" }, NOW)).toEqual({ from: "2026-01-31", to: "2026-03-01" }))
  it("a quarter (92 days) at most", () =>
    expect(usageRange({ from: "2026-01-01", to: "2026-04-02" }, NOW)).toEqual({ from: "2026-01-01", to: "2026-04-02" }))
  it("a given range as it is", () =>
    expect(usageRange({ from: "2026-11-01", to: "2026-11-01" }, NOW)).toEqual({ from: "2026-11-01", to: "2026-11-01" }))
  it.each([
    [{ to: "26-11-01" }, "to: must be a date"],
    [{ from: ["2026-11-01"] }, "from: must be a date"],
    [{ to: "yesterday" }, "to: must be a date"]
  ])("refuses %j as not written YYYY-MM-DD (malformed)", (query, message) =>
    expect(usageRange(query, NOW)).toMatchObject({ malformed: true, message: expect.stringContaining(message) })
  )
  it.each([
    [{ from: "2026-13-01" }, "from: 2026-13-01 is not a calendar day"],
    [{ from: "2026-02-30" }, "from: 2026-02-30 is not a calendar day"],
    [{ from: "0000-00-00" }, "not a calendar day"],
    [{ from: "2026-11-02", to: "2026-11-01" }, "from: must not be after to"],
    [{ from: "2024-01-01", to: "2026-01-01" }, "at most 92 days"],
    [{ from: "2026-01-01", to: "2026-04-03" }, "at most 92 days"]
  ])("refuses %j as no range it serves (well written)", (query, message) =>
    expect(usageRange(query, NOW)).toMatchObject({ malformed: false, message: expect.stringContaining(message) })
  )
})

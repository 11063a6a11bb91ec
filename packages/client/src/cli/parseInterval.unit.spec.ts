// `mds subscribe --every`: durations as people write them, as seconds; anything else is a usage error.
import { describe, expect, it } from "vitest"
import { parseInterval } from "./runCli.ts"

describe("parseInterval", () => {
  it("reads seconds, minutes, hours and days", () => {
    expect(parseInterval("3600")).toBe(3600)
    expect(parseInterval("90m")).toBe(5400)
    expect(parseInterval("1h")).toBe(3600)
    expect(parseInterval("2d")).toBe(172_800)
  })

  it("refuses what is not a duration", () => {
    expect(() => parseInterval("1 hour")).toThrow(/--every/)
    expect(() => parseInterval("-5m")).toThrow(/--every/)
  })
})

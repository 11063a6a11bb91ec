import { describe, expect, it } from "vitest"
import { limitOf, parsePlatformCounts } from "./PlatformLimits.ts"

describe("parsePlatformCounts", () => {
  it("reads PLATFORM=N lists, platform ids in lower case", () => {
    const counts = parsePlatformCounts(" YouTube=2, generic=10 ,")
    expect(counts).toEqual(
      new Map([
        ["youtube", 2],
        ["generic", 10]
      ])
    )
  })

  it("says which entry is wrong", () => {
    expect(parsePlatformCounts("youtube=0")).toMatch(/"youtube=0"/)
    expect(parsePlatformCounts("youtube")).toMatch(/not PLATFORM=N/)
    expect(parsePlatformCounts("you tube=2")).toMatch(/not PLATFORM=N/)
  })
})

describe("limitOf", () => {
  it("leaves a platform without an entry unlimited", () => {
    const concurrent = new Map([["youtube", 2]])
    const starts = new Map([["generic", 5]])
    expect(limitOf(concurrent, starts, "youtube")).toEqual({ concurrent: 2, startsPerMinute: null })
    expect(limitOf(concurrent, starts, "generic")).toEqual({ concurrent: null, startsPerMinute: 5 })
    expect(limitOf(concurrent, starts, "vimeo")).toEqual({ concurrent: null, startsPerMinute: null })
  })
})

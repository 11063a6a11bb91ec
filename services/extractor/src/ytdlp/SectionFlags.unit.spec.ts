// The clip flags and the clip's duration as the job's limits see it.
import { describe, expect, it } from "vitest"
import { clipDuration, sectionFlags } from "./SectionFlags.ts"

describe("sectionFlags", () => {
  it("adds nothing without a section", () => expect(sectionFlags(undefined)).toEqual({}))
  it("keyframe cuts: only --download-sections", () =>
    expect(sectionFlags({ start: 30, end: 45, precise: false })).toEqual({ downloadSections: "*30-45" }))
  it("precise cuts force keyframes at the cuts; decimals stay plain", () =>
    expect(sectionFlags({ start: 1.5, end: 2.0000001, precise: true })).toEqual({ downloadSections: "*1.5-2", forceKeyframesAtCuts: true }))
})

describe("clipDuration", () => {
  it("is the section's length within the media", () => expect(clipDuration({ start: 30, end: 45, precise: false }, 600)).toBe(15))
  it("stops at the media's end", () => expect(clipDuration({ start: 30, end: 45, precise: false }, 40)).toBe(10))
  it("is the section's length when the duration is unknown", () => expect(clipDuration({ start: 5, end: 7, precise: true }, null)).toBe(2))
  it("is the media's duration without a section", () => expect(clipDuration(undefined, 99)).toBe(99))
})

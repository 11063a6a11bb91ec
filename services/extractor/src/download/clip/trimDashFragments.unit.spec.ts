// Which fragments a clip keeps of a DASH format.
import { describe, expect, it } from "vitest"
import { trimDashFragments } from "./trimDashFragments.ts"

const media = (count: number, seconds = 2) => Array.from({ length: count }, (_, i) => ({ path: `seg-${i + 1}.m4s`, duration: seconds }))

describe("trimDashFragments", () => {
  it("keeps the initialization segment and the fragments the window overlaps", () => {
    const trimmed = trimDashFragments([{ path: "init.m4s" }, ...media(10)], { start: 5, end: 9 })
    expect(trimmed?.startSeconds).toBe(4)
    expect(trimmed?.fragments).toEqual([{ path: "init.m4s" }, ...media(10).slice(2, 5)])
  })

  it("works without an initialization segment", () => {
    expect(trimDashFragments(media(5), { start: 2, end: 4 })).toEqual({ fragments: media(5).slice(1, 2), startSeconds: 2 })
  })

  it("cannot trim a generator, fragments of unknown duration, a second initialization, or a window past the end", () => {
    expect(trimDashFragments("generator", { start: 0, end: 1 })).toBeNull()
    expect(trimDashFragments([{ path: "a" }, { path: "b" }], { start: 0, end: 1 })).toBeNull()
    expect(trimDashFragments([{ path: "init1" }, ...media(2), { path: "init2" }, ...media(2)], { start: 0, end: 1 })).toBeNull()
    expect(trimDashFragments(media(2), { start: 5, end: 6 })).toBeNull()
  })
})

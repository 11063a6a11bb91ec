// The media visibility rule, given a media's owner and lifetime, when a project asks, then whether it may see it.
import { describe, expect, it } from "vitest"
import { isMediaVisibleTo, mediaOwnerOf } from "./MediaVisibility.ts"

const NOW = 1_000_000

describe("isMediaVisibleTo", () => {
  it("media resolved without cookies: every project, until it expires", () => {
    expect(isMediaVisibleTo({ expiresAt: NOW + 1 }, "prj_a", NOW)).toBe(true)
    expect(isMediaVisibleTo({ expiresAt: NOW + 1 }, "prj_b", NOW)).toBe(true)
    expect(isMediaVisibleTo({ expiresAt: NOW }, "prj_a", NOW)).toBe(false)
  })

  it("media resolved with a project's cookies: that project alone, until it expires", () => {
    expect(isMediaVisibleTo({ projectId: "prj_a", expiresAt: NOW + 1 }, "prj_a", NOW)).toBe(true)
    expect(isMediaVisibleTo({ projectId: "prj_a", expiresAt: NOW + 1 }, "prj_b", NOW)).toBe(false)
    expect(isMediaVisibleTo({ projectId: "prj_a", expiresAt: NOW }, "prj_a", NOW)).toBe(false)
  })
})

describe("mediaOwnerOf", () => {
  it("owns the media to the asking project only when its cookies went with the extraction", () => {
    expect(mediaOwnerOf("prj_a", true)).toEqual({ projectId: "prj_a" })
    expect(mediaOwnerOf("prj_a", false)).toEqual({})
    expect(mediaOwnerOf(null, false)).toEqual({})
  })
})

import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { parseInfoLine } from "./InfoLine.ts"

describe("parseInfoLine", () => {
  it("reads the duration and the exact size", () => {
    expect(parseInfoLine('[mds-info] {"duration": 62.5, "filesize": 1000, "filesize_approx": 900}')).toEqual(
      Option.some({ durationSeconds: 62.5, bytes: 1000 })
    )
  })
  it("falls back to the approximate size, and to null for what yt-dlp does not know", () => {
    expect(parseInfoLine('[mds-info] {"filesize_approx": 900}')).toEqual(Option.some({ durationSeconds: null, bytes: 900 }))
    expect(parseInfoLine('[mds-info] {"duration": null, "filesize": null}')).toEqual(Option.some({ durationSeconds: null, bytes: null }))
  })
  it("ignores other lines and malformed JSON", () => {
    expect(Option.isNone(parseInfoLine("[download] 10% of 1MiB"))).toBe(true)
    expect(Option.isNone(parseInfoLine("[mds-info] {not json"))).toBe(true)
    expect(Option.isNone(parseInfoLine('[mds-info] {"duration": "long"}'))).toBe(true)
  })
})

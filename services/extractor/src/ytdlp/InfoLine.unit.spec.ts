import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { parseInfoLine } from "./InfoLine.ts"

describe("parseInfoLine", () => {
  it("reads the duration, the exact size and the chosen format's codecs and id", () => {
    expect(
      parseInfoLine(
        '[mds-info] {"duration": 62.5, "filesize": 1000, "filesize_approx": 900, "vcodec": "avc1.4d401e", "acodec": "none", "format_id": "v1+a0"}'
      )
    ).toEqual(
      Option.some({
        durationSeconds: 62.5,
        bytes: 1000,
        videoCodec: "avc1.4d401e",
        audioCodec: "none",
        formatId: "v1+a0",
        live: false,
        upcoming: null
      })
    )
  })
  it("falls back to the approximate size, and to null for what yt-dlp does not know", () => {
    const unknown = { durationSeconds: null, videoCodec: null, audioCodec: null, formatId: null, live: false, upcoming: null }
    expect(parseInfoLine('[mds-info] {"filesize_approx": 900}')).toEqual(Option.some({ ...unknown, bytes: 900 }))
    expect(parseInfoLine('[mds-info] {"duration": null, "filesize": null, "vcodec": null}')).toEqual(
      Option.some({ ...unknown, bytes: null })
    )
  })
  it("tells a live stream by is_live or by live_status", () => {
    expect(Option.map(parseInfoLine('[mds-info] {"is_live": true, "live_status": "is_live"}'), (m) => m.live)).toEqual(Option.some(true))
    expect(Option.map(parseInfoLine('[mds-info] {"live_status": "is_live"}'), (m) => m.live)).toEqual(Option.some(true))
    expect(Option.map(parseInfoLine('[mds-info] {"is_live": false, "live_status": "was_live"}'), (m) => m.live)).toEqual(Option.some(false))
  })
  it("tells a stream or premiere that has not begun, with its announced start when it says one", () => {
    const upcoming = (line: string) => Option.map(parseInfoLine(line), (m) => m.upcoming)
    expect(upcoming('[mds-info] {"live_status": "is_upcoming", "release_timestamp": 1900000000}')).toEqual(
      Option.some({ startsAt: 1_900_000_000_000 })
    )
    expect(upcoming('[mds-info] {"live_status": "is_upcoming", "release_timestamp": null}')).toEqual(Option.some({ startsAt: null }))
    expect(upcoming('[mds-info] {"live_status": "is_live", "release_timestamp": 1900000000}')).toEqual(Option.some(null))
  })
  it("ignores other lines and malformed JSON", () => {
    expect(Option.isNone(parseInfoLine("[download] 10% of 1MiB"))).toBe(true)
    expect(Option.isNone(parseInfoLine("[mds-info] {not json"))).toBe(true)
    expect(Option.isNone(parseInfoLine('[mds-info] {"duration": "long"}'))).toBe(true)
  })
})

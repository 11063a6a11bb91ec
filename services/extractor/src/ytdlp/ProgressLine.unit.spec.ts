import { describe, expect, it } from "vitest"
import { parseProgressBytes, parseProgressLine } from "./ProgressLine.ts"

describe("parseProgressLine", () => {
  it("reads bytes against the known total", () => {
    expect(parseProgressLine("[mds-progress] 524288 1048576 NA NA NA")).toBe(50)
  })
  it("falls back to the size estimate", () => {
    expect(parseProgressLine("[mds-progress] 250 NA 1000 NA NA")).toBe(25)
  })
  it("prefers the fragment count for fragmented downloads", () => {
    expect(parseProgressLine("[mds-progress] 9999 NA 123456 3 4")).toBe(75)
  })
  it("clamps overshooting estimates to 100", () => {
    expect(parseProgressLine("[mds-progress] 2000 NA 1000 NA NA")).toBe(100)
  })
  it("ignores lines without a usable size and other output", () => {
    expect(parseProgressLine("[mds-progress] 2000 NA NA NA NA")).toBeNull()
    expect(parseProgressLine("[download] Destination: media.mp4")).toBeNull()
    expect(parseProgressLine('[Merger] Merging formats into "media.mp4"')).toBeNull()
  })
})

describe("parseProgressBytes", () => {
  it("is the larger of the bytes so far and the announced size", () => {
    expect(parseProgressBytes("[mds-progress] 524288 1048576 NA NA NA")).toBe(1048576)
    expect(parseProgressBytes("[mds-progress] 2000 NA 1000 NA NA")).toBe(2000)
    expect(parseProgressBytes("[mds-progress] 2000 NA NA 1 9")).toBe(2000)
  })
  it("is null when nothing is known, and for other output", () => {
    expect(parseProgressBytes("[mds-progress] NA NA NA NA NA")).toBeNull()
    expect(parseProgressBytes("[download] 10%")).toBeNull()
  })
})

describe("parseResultLine", () => {
  it("reads the final file, title and extension", async () => {
    const { parseResultLine } = await import("./ResultLine.ts")
    const parsed = parseResultLine('[mds-result] {"filepath": "/data/work/job_x/media.mp3", "title": "Café \\"live\\"", "ext": "mp3"}')
    expect(parsed._tag === "Some" && parsed.value).toEqual({ filepath: "/data/work/job_x/media.mp3", title: 'Café "live"', ext: "mp3" })
    expect(parseResultLine("[download] 100%")._tag).toBe("None")
  })
})

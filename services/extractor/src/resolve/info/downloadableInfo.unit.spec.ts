// What a resolve stores for a download by media id: the media entry, without the format pick of the resolve.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { downloadableInfo } from "./downloadableInfo.ts"

const stored = (value: unknown) => Option.getOrThrow(downloadableInfo(JSON.stringify(value)))

const formats = [
  { format_id: "a", url: "https://cdn.test/a.m4a", vcodec: "none", acodec: "mp4a.40.2" },
  { format_id: "v240", url: "https://cdn.test/240.mp4", vcodec: "avc1", acodec: "none", height: 240 }
]

describe("downloadableInfo", () => {
  it("removes the resolve's pick (requested_formats and the merged fields) and keeps formats and metadata", () => {
    const info = stored({
      id: "x",
      title: "T",
      duration: 6,
      http_headers: { "User-Agent": "UA" },
      formats,
      requested_formats: [formats[1], formats[0]],
      format_id: "v240+a",
      url: "https://cdn.test/240.mp4",
      ext: "mp4",
      height: 240
    })
    expect(info).toEqual({ id: "x", title: "T", duration: 6, http_headers: { "User-Agent": "UA" }, formats })
  })

  it("keeps a direct file's own url and ext when it has no formats list", () => {
    const info = stored({ id: "clip", url: "https://cdn.test/clip.mp4", ext: "mp4", format_id: "mp4" })
    expect(info).toEqual({ id: "clip", url: "https://cdn.test/clip.mp4", ext: "mp4", format_id: "mp4" })
  })

  it("narrows a playlist answer to its first entry, as the resolve described it", () => {
    const info = stored({ _type: "playlist", entries: [null, { id: "first", formats, format_id: "a" }, { id: "second", formats }] })
    expect(info).toEqual({ id: "first", formats })
  })

  it.each(["", "not json", "[1,2]", "null"])("is none for output that is not a JSON object: %j", (stdout) => {
    expect(Option.isNone(downloadableInfo(stdout))).toBe(true)
  })
})

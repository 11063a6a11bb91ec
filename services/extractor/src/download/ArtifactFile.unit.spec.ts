import { describe, expect, it } from "vitest"
import { mimeTypeOf, safeFileName } from "./ArtifactFile.ts"

describe("safeFileName", () => {
  it("keeps a plain title", () => {
    expect(safeFileName("My Holiday Clip", "mp4")).toBe("My Holiday Clip.mp4")
  })
  it("removes path separators, traversal and control characters", () => {
    const name = safeFileName("../../etc/passwd\u0000\n\u202eevil", "MP3")
    expect(name).toBe("etc passwd evil.mp3")
    expect(name).not.toMatch(/[/\\\u0000-\u001f]/)
  })
  it("drops leading dots and characters Windows refuses", () => {
    expect(safeFileName('...hidden: a*b?"c"<d>|e', "m4a")).toBe("hidden a b c d e.m4a")
  })
  it("bounds the length without cutting a character in half", () => {
    const name = safeFileName("😀".repeat(300), "mp4")
    expect([...name.replace(/\.mp4$/, "")].length).toBe(120)
    expect(name.endsWith(".mp4")).toBe(true)
  })
  it("falls back to 'media' for an empty title and sanitizes the extension", () => {
    expect(safeFileName(" / ", "m/p4")).toBe("media.mp4")
  })
})

describe("mimeTypeOf", () => {
  it.each([
    ["mp4", "video", "video/mp4"],
    ["m4a", "audio", "audio/mp4"],
    ["mp3", "audio", "audio/mpeg"],
    ["webm", "video", "video/webm"],
    ["webm", "audio", "audio/webm"],
    ["opus", "audio", "audio/ogg"],
    ["xyz", "video", "application/octet-stream"]
  ] as const)("%s (%s) is %s", (ext, kind, mime) => {
    expect(mimeTypeOf(ext, kind)).toBe(mime)
  })
})

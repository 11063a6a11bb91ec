// When a stored info is narrowed to a clip (all its media formats trimmable), and what each trimmed format starts at.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { clipInfo } from "./clipInfo.ts"

const section = { start: 3, end: 5, precise: false }
const hlsPlaylist = ["#EXTM3U", ...[0, 1, 2, 3].flatMap((i) => ["#EXTINF:2,", `s${i}.ts`]), "#EXT-X-ENDLIST"].join("\n")
const hls = {
  format_id: "hls-1",
  protocol: "m3u8_native",
  url: "https://cdn.test/v.m3u8",
  vcodec: "avc1",
  acodec: "mp4a",
  hls_media_playlist_data: hlsPlaylist
}
const dash = (id: string, kind: "video" | "audio", seconds: number) => ({
  format_id: id,
  protocol: "http_dash_segments",
  vcodec: kind === "video" ? "avc1" : "none",
  acodec: kind === "audio" ? "mp4a" : "none",
  fragments: [{ path: "init" }, ...Array.from({ length: 6 }, (_, i) => ({ path: `${id}-${i}`, duration: seconds }))]
})
const storyboard = { format_id: "sb0", protocol: "mhtml", vcodec: "none", acodec: "none", fragments: [{ url: "x" }] }

describe("clipInfo", () => {
  it("trims every media format, leaves storyboards and the media's own fields, and records each format's start", () => {
    const info = { id: "m", duration: 12, formats: [hls, dash("v", "video", 2), dash("a", "audio", 1.5), storyboard] }
    const clip = Option.getOrThrow(clipInfo(info, section))
    expect(clip.info["duration"]).toBe(12)
    const formats = clip.info["formats"] as ReadonlyArray<Record<string, unknown>>
    expect(formats[0]?.["hls_media_playlist_data"]).toBe(
      ["#EXTM3U", "#EXTINF:2,", "s1.ts", "#EXTINF:2,", "s2.ts", "#EXT-X-ENDLIST"].join("\n")
    )
    expect(formats[1]?.["fragments"]).toHaveLength(3)
    expect(formats[3]).toEqual(storyboard)
    expect(clip.starts).toEqual(
      new Map([
        ["hls-1", { startSeconds: 2, video: true, audio: true }],
        ["v", { startSeconds: 2, video: true, audio: false }],
        ["a", { startSeconds: 3, video: false, audio: true }]
      ])
    )
  })

  it("is none when any media format cannot be trimmed: a direct file, HLS without its playlist, ffmpeg's HLS, a live stream", () => {
    const direct = { format_id: "mp4", protocol: "https", url: "https://cdn.test/v.mp4", vcodec: "avc1", acodec: "mp4a" }
    expect(Option.isNone(clipInfo({ formats: [hls, direct] }, section))).toBe(true)
    expect(Option.isNone(clipInfo({ formats: [{ ...hls, hls_media_playlist_data: undefined }] }, section))).toBe(true)
    expect(Option.isNone(clipInfo({ formats: [{ ...hls, protocol: "m3u8" }] }, section))).toBe(true)
    expect(Option.isNone(clipInfo({ is_live: true, formats: [hls] }, section))).toBe(true)
    expect(Option.isNone(clipInfo({ url: "https://cdn.test/v.mp4" }, section))).toBe(true)
  })
})

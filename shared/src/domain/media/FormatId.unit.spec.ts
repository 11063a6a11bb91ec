// The format id grammar: video_best, video_<h>p, audio_best, audio_mp3, audio_m4a; nothing else.
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { parseFormatId, videoFormatId } from "./FormatId.ts"

describe("parseFormatId", () => {
  it.each([
    ["video_best", { kind: "video", height: null }],
    ["video_720p", { kind: "video", height: 720 }],
    ["video_2160p", { kind: "video", height: 2160 }],
    ["video_10p", { kind: "video", height: 10 }],
    ["audio_best", { kind: "audio", codec: "best" }],
    ["audio_mp3", { kind: "audio", codec: "mp3" }],
    ["audio_m4a", { kind: "audio", codec: "m4a" }]
  ])("parses %s", (id, spec) => expect(parseFormatId(id)).toEqual(Option.some(spec)))

  it.each(["", "video", "video_0p", "video_0720p", "video_7p", "video_12345p", "video_720", "audio_ogg", "VIDEO_BEST", "video_best "])(
    "rejects %j",
    (id) => expect(Option.isNone(parseFormatId(id))).toBe(true)
  )

  it("videoFormatId round-trips through the parser", () => {
    expect(parseFormatId(videoFormatId(1080))).toEqual(Option.some({ kind: "video", height: 1080 }))
  })
})

// The format id grammar: video_best, video_<h>p, audio_best, audio_mp3, audio_m4a, subtitles_<lang>; anything else unlisted.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { FormatId, formatIdOf, parseFormatId, videoFormatId } from "./FormatId.ts"

describe("parseFormatId", () => {
  it.each([
    ["video_best", { kind: "video", height: null }],
    ["video_720p", { kind: "video", height: 720 }],
    ["video_2160p", { kind: "video", height: 2160 }],
    ["video_10p", { kind: "video", height: 10 }],
    ["audio_best", { kind: "audio", codec: "best" }],
    ["audio_mp3", { kind: "audio", codec: "mp3" }],
    ["audio_m4a", { kind: "audio", codec: "m4a" }],
    ["subtitles_en", { kind: "subtitles", language: "en" }],
    ["subtitles_pt-BR", { kind: "subtitles", language: "pt-BR" }]
  ])("parses %s", (id, format) => expect(parseFormatId(id)).toEqual(format))

  it.each([
    "",
    "video",
    "video_0p",
    "video_0720p",
    "video_7p",
    "video_12345p",
    "video_720",
    "audio_ogg",
    "VIDEO_BEST",
    "video_best ",
    "subtitles_",
    "subtitles_e n"
  ])("keeps %j out of the grammar, as an unlisted id", (id) => expect(parseFormatId(id)).toEqual({ kind: "unlisted", id }))

  it("videoFormatId round-trips through the parser", () => {
    expect(parseFormatId(videoFormatId(1080))).toEqual({ kind: "video", height: 1080 })
  })

  it.each(["video_best", "video_720p", "audio_mp3", "subtitles_pt-BR", "video_4k", "", "video_0720p"])(
    "writes %j back as the id it was read from (stored events keep their shape)",
    (id) => {
      expect(formatIdOf(parseFormatId(id))).toBe(id)
      const decoded = Schema.decodeUnknownSync(FormatId)(id)
      expect(Schema.encodeSync(FormatId)(decoded)).toBe(id)
    }
  )
})

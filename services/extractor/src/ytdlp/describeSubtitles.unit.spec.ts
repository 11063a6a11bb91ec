// Which subtitle languages a resolve lists, from yt-dlp's subtitles and automatic_captions.
import { describe, expect, it } from "vitest"
import { describeSubtitles } from "./describeSubtitles.ts"

describe("describeSubtitles", () => {
  it("lists manual tracks first, then automatic ones, marked, one per language", () => {
    expect(
      describeSubtitles({
        subtitles: { en: [{ ext: "vtt", name: "English" }], de: [{ ext: "vtt" }], live_chat: [{ ext: "json" }] },
        automatic_captions: { en: [{ ext: "vtt" }], fr: [{ ext: "vtt", name: "French (auto)" }], "x y": [{ ext: "vtt" }] }
      })
    ).toEqual([
      { language: "de", name: "de", automatic: false },
      { language: "en", name: "English", automatic: false },
      { language: "fr", name: "French (auto)", automatic: true }
    ])
  })
  it("is empty when yt-dlp found none", () => expect(describeSubtitles({})).toEqual([]))
})

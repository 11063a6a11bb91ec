// Given the Download tab's form as sent, then the /v1 body holds only what the user set, in the API's spelling.
import { describe, expect, it } from "vitest"
import { parseFormBody } from "./DashboardForms.ts"
import { batchBodyOf, downloadBodyOf, downloadFormValues, secondsOf } from "./DownloadForm.ts"

const form = (text: string) => downloadFormValues(parseFormBody(text))

describe("secondsOf", () => {
  it.each([
    ["90", 90],
    ["1:30", 90],
    ["1:02:03.5", 3723.5],
    ["0.25", 0.25]
  ])("%s -> %d", (raw, seconds) => expect(secondsOf(raw)).toBe(seconds))
  it("leaves anything else as text, for the API's schema to name", () => expect(secondsOf("soon")).toBe("soon"))
})

describe("downloadBodyOf", () => {
  it("a plain download is media_id and format, nothing else", () => {
    expect(downloadBodyOf("med_1", form("format=video_best&clip_start=&clip_end=&video_codec=&audio_bitrate="))).toEqual({
      media_id: "med_1",
      format: "video_best"
    })
  })

  it("a clip and presets as the API spells them", () => {
    const values = form(
      "format=video_best&clip_start=0:05&clip_end=12.5&clip_precise=1&video_codec=vp9&container=webm&mute=1&embed_metadata=1&subtitles=en&subtitles=de"
    )
    expect(downloadBodyOf("med_1", values)).toEqual({
      media_id: "med_1",
      format: "video_best",
      section: { start: 5, end: 12.5, precise: true },
      video_codec: "vp9",
      container: "webm",
      mute: true,
      embed_metadata: true,
      subtitles: ["en", "de"]
    })
  })

  it("a half-given clip still goes to the API, which says what is missing", () => {
    expect(downloadBodyOf("med_1", form("format=audio_mp3&clip_end=30&audio_bitrate=128"))).toEqual({
      media_id: "med_1",
      format: "audio_mp3",
      section: { start: "", end: 30 },
      audio_bitrate: 128
    })
  })
})

describe("the destination fields", () => {
  it("no destination chosen: no destination in the body, whatever the template field says", () => {
    expect(downloadBodyOf("med_1", form("format=audio_mp3&destination=&path={title}.{ext}"))).toEqual({
      media_id: "med_1",
      format: "audio_mp3"
    })
  })

  it("a destination with its template, or without one for the default", () => {
    const id = "dst_aaaaaaaaaaaaaaaaaaaaaaaa"
    expect(downloadBodyOf("med_1", form(`format=audio_mp3&destination=${id}&path=+Podcasts/{title}.{ext}+`))).toEqual({
      media_id: "med_1",
      format: "audio_mp3",
      destination: { id, path: "Podcasts/{title}.{ext}" }
    })
    expect(batchBodyOf("med_p", null, form(`format=audio_mp3&destination=${id}&path=`))).toEqual({
      media_id: "med_p",
      format: "audio_mp3",
      destination: { id }
    })
  })
})

describe("batchBodyOf", () => {
  it("names the ticked entries, or none for every entry", () => {
    const values = form("format=audio_mp3")
    expect(batchBodyOf("med_p", ["ent_1"], values)).toEqual({ media_id: "med_p", format: "audio_mp3", entries: ["ent_1"] })
    expect(batchBodyOf("med_p", null, values)).toEqual({ media_id: "med_p", format: "audio_mp3" })
  })
})

// The /v1 shape of a playlist's entries: how the extractor named each entry and when it was published, null when unknown.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { MediaEvent, type MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { toMediaResponse } from "./MediaResponse.ts"

const playlist = (entries: ReadonlyArray<Record<string, unknown>>): MediaResolved =>
  Schema.decodeUnknownSync(MediaEvent)({
    _tag: "MediaResolved",
    v: 1,
    mediaId: "med_q2w3e4r5t6y7u2i3o4p5a6s7",
    url: "https://www.youtube.com/@channel/videos",
    webpageUrl: "https://www.youtube.com/@channel/videos",
    platform: "youtube",
    type: "playlist",
    title: "Channel",
    thumbnail: "",
    duration: 0,
    author: { name: "", username: "" },
    formats: [],
    resolvedAt: 1_767_225_000_000,
    expiresAt: 1_767_228_600_000,
    entries
  }) as MediaResolved

describe("toMediaResponse, playlist entries", () => {
  it("shows the extractor's key and id and the published time", () => {
    const media = playlist([
      {
        id: "ent_3f1c0a9b2d4e5f60",
        url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        title: "A",
        duration: 212,
        extractorKey: "Youtube",
        extractorId: "dQw4w9WgXcQ",
        publishedAt: 1_793_700_000_000
      }
    ])
    expect(toMediaResponse(media).entries).toEqual([
      {
        id: "ent_3f1c0a9b2d4e5f60",
        url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
        title: "A",
        duration: 212,
        extractor_key: "Youtube",
        extractor_id: "dQw4w9WgXcQ",
        published_at: "2026-11-03T10:00:00.000Z"
      }
    ])
  })

  it("an entry recorded before these fields (or of a playlist that does not say) shows them null", () => {
    const media = playlist([{ id: "ent_1", url: "https://a.example/1.mp3", title: "One", duration: null }])
    expect(toMediaResponse(media).entries).toEqual([
      {
        id: "ent_1",
        url: "https://a.example/1.mp3",
        title: "One",
        duration: null,
        extractor_key: null,
        extractor_id: null,
        published_at: null
      }
    ])
  })
})

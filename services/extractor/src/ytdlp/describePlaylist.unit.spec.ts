// Which yt-dlp answers are playlists of references, and the flat entries a resolve lists.
import { describe, expect, it } from "vitest"
import { entryIdOf, playlistEntries } from "./describePlaylist.ts"

const feed = {
  _type: "playlist",
  title: "Feed",
  entries: [
    { _type: "url_transparent", url: "https://a.example/1.mp3", title: "One", duration: 61.4 },
    { _type: "url_transparent", url: "https://a.example/2.mp3#__youtubedl_smuggle=%7B%7D", title: " ", duration: null },
    { _type: "url_transparent", url: "https://a.example/1.mp3", title: "One again" },
    { _type: "url", url: "ftp://a.example/3.mp3", title: "Not http" }
  ]
}

describe("playlistEntries", () => {
  it("lists references flat, unsmuggled, deduplicated, with stable ids", () => {
    expect(playlistEntries(feed, 10)).toEqual([
      { id: entryIdOf("https://a.example/1.mp3"), url: "https://a.example/1.mp3", title: "One", duration: 61 },
      { id: entryIdOf("https://a.example/2.mp3"), url: "https://a.example/2.mp3", title: "https://a.example/2.mp3", duration: null }
    ])
    expect(entryIdOf("https://a.example/1.mp3")).toMatch(/^ent_[0-9a-f]{16}$/)
  })
  it("stops at the cap", () => expect(playlistEntries(feed, 1)).toHaveLength(1))
  it("is null for one media and for a page whose entries are full media", () => {
    expect(playlistEntries({ title: "x", formats: [] }, 10)).toBeNull()
    expect(playlistEntries({ _type: "playlist", entries: [{ title: "v", formats: [{ url: "https://a.example/v.mp4" }] }] }, 10)).toBeNull()
  })

  it("names each entry as yt-dlp's download archive does (ie_key and id), and when it was published", () => {
    const channel = {
      _type: "playlist",
      entries: [
        {
          _type: "url",
          ie_key: "Youtube",
          id: "dQw4w9WgXcQ",
          url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
          title: "A",
          timestamp: 1_793_700_000
        },
        {
          _type: "url",
          ie_key: "Youtube",
          id: "aaaaaaaaaaa",
          url: "https://www.youtube.com/watch?v=aaaaaaaaaaa",
          title: "B",
          upload_date: "20261103"
        },
        {
          _type: "url",
          ie_key: "Youtube",
          id: "bbbbbbbbbbb",
          url: "https://www.youtube.com/watch?v=bbbbbbbbbbb",
          title: "C",
          release_timestamp: 1_793_000_000.5
        },
        { _type: "url", ie_key: "Youtube", url: "https://www.youtube.com/watch?v=ccccccccccc", title: "No id", upload_date: "20261332" }
      ]
    }
    const entries = playlistEntries(channel, 10) ?? []
    expect(entries.map((e) => [e.extractorKey, e.extractorId, e.publishedAt])).toEqual([
      ["Youtube", "dQw4w9WgXcQ", 1_793_700_000_000],
      ["Youtube", "aaaaaaaaaaa", Date.UTC(2026, 10, 3)],
      ["Youtube", "bbbbbbbbbbb", 1_793_000_000_500],
      // No id: nothing to name it by (the archive falls back to the URL); a day that is no calendar day is no date.
      [undefined, undefined, undefined]
    ])
    expect(Object.keys(entries[3] ?? {})).toEqual(["id", "url", "title", "duration"])
  })

  it("names a feed item by its guid under the generic extractor, as yt-dlp reads it (the guid travels smuggled in the URL)", () => {
    const withGuid = {
      _type: "playlist",
      entries: [
        {
          _type: "url_transparent",
          url: "https://a.example/1.mp3#__youtubedl_smuggle=%7B%22force_videoid%22%3A+%22episode-guid-1%22%7D",
          title: "One",
          timestamp: 1_793_700_000
        },
        { _type: "url_transparent", url: "https://a.example/2.mp3#__youtubedl_smuggle=not-json", title: "Two" }
      ]
    }
    expect(playlistEntries(withGuid, 10)).toEqual([
      {
        id: entryIdOf("https://a.example/1.mp3"),
        url: "https://a.example/1.mp3",
        title: "One",
        duration: null,
        extractorKey: "Generic",
        extractorId: "episode-guid-1",
        publishedAt: 1_793_700_000_000
      },
      { id: entryIdOf("https://a.example/2.mp3"), url: "https://a.example/2.mp3", title: "Two", duration: null }
    ])
  })
})

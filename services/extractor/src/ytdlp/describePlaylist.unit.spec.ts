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
})

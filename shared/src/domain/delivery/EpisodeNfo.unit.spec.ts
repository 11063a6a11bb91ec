// The episode NFO a library reads: the media's fields in their elements, escaped, numbered only for a subscription.
import { describe, expect, it } from "vitest"
import { episodeNfo } from "./EpisodeNfo.ts"
import { libraryEntryOf } from "./LibraryEntry.ts"
import { tvShowNfo } from "./TvShowNfo.ts"

const info = {
  id: "abc123",
  title: "Tom & Jerry <live>",
  description: "A \u0001plot",
  upload_date: "20260315",
  timestamp: Date.UTC(2026, 2, 15, 14, 5) / 1000,
  uploader: "Some Channel",
  duration: 754,
  extractor_key: "Youtube",
  playlist_title: "Uploads",
  formats: [{ url: "https://signed.example/x?sig=1" }]
}

describe("episodeNfo", () => {
  it("writes the media's fields, escaped, with the platform id as uniqueid and the local thumbnail", () => {
    const entry = libraryEntryOf(info)
    expect(entry).not.toBeNull()
    if (entry === null) return
    const nfo = episodeNfo(entry, "Talk [abc123]-thumb.jpg", false)
    expect(nfo).toContain("<title>Tom &amp; Jerry &lt;live&gt;</title>")
    expect(nfo).toContain("<plot>A plot</plot>")
    expect(nfo).toContain("<aired>2026-03-15</aired>")
    expect(nfo).toContain("<premiered>2026-03-15</premiered>")
    expect(nfo).toContain("<studio>Some Channel</studio>")
    expect(nfo).toContain("<runtime>13</runtime>")
    expect(nfo).toContain('<uniqueid type="youtube" default="true">abc123</uniqueid>')
    expect(nfo).toContain("<thumb>Talk [abc123]-thumb.jpg</thumb>")
    expect(nfo).not.toContain("<season>")
    expect(nfo).not.toContain("signed.example")
    expect(nfo.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<episodedetails>')).toBe(true)
  })

  it("numbers a subscription's entry by its own date and time: season the year, episode MMDDhhmm", () => {
    const entry = libraryEntryOf(info)
    if (entry === null) throw new Error("no entry")
    const nfo = episodeNfo(entry, null, true)
    expect(nfo).toContain("<season>2026</season>")
    expect(nfo).toContain("<episode>3151405</episode>")
    expect(nfo).toContain("<showtitle>Uploads</showtitle>")
    expect(nfo).not.toContain("<thumb>")
  })

  it("leaves out what the info lacks or gives with the wrong type, and needs only the id", () => {
    const entry = libraryEntryOf({ id: "x", duration: "long", title: 5 })
    expect(entry).toEqual({ id: "x" })
    expect(libraryEntryOf({ title: "no id" })).toBeNull()
  })
})

describe("tvShowNfo", () => {
  it("names the show and points at its poster", () => {
    const nfo = tvShowNfo({ title: "Some Channel", id: "UC1", idType: "youtube", posterFile: "poster.jpg" })
    expect(nfo).toContain("<tvshow>")
    expect(nfo).toContain("<title>Some Channel</title>")
    expect(nfo).toContain('<uniqueid type="youtube" default="true">UC1</uniqueid>')
    expect(nfo).toContain('<thumb aspect="poster">poster.jpg</thumb>')
  })
})

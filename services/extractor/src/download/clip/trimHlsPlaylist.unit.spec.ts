// Which segments a clip keeps of an HLS media playlist, and that the tags yt-dlp reads for the kept ones survive.
import { describe, expect, it } from "vitest"
import { trimHlsPlaylist } from "./trimHlsPlaylist.ts"

const playlist = (
  head: ReadonlyArray<string>,
  segments: number,
  seconds = 2,
  perSegment: (i: number) => ReadonlyArray<string> = () => []
) =>
  [
    "#EXTM3U",
    ...head,
    ...Array.from({ length: segments }, (_, i) => [...perSegment(i), `#EXTINF:${seconds}.000,`, `seg${i}.ts`]).flat(),
    "#EXT-X-ENDLIST"
  ].join("\n")

const uris = (text: string) => text.split("\n").filter((line) => line !== "" && !line.startsWith("#"))

describe("trimHlsPlaylist", () => {
  it("keeps the segments the window overlaps, the header and the end, and says where the first kept one starts", () => {
    const trimmed = trimHlsPlaylist(playlist(["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0"], 10), {
      start: 5,
      end: 9
    })
    expect(trimmed?.startSeconds).toBe(4)
    expect(uris(trimmed?.playlist ?? "")).toEqual(["seg2.ts", "seg3.ts", "seg4.ts"])
    expect(trimmed?.playlist.split("\n").slice(0, 4)).toEqual([
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      "#EXT-X-TARGETDURATION:2",
      "#EXT-X-MEDIA-SEQUENCE:0"
    ])
    expect(trimmed?.playlist.split("\n").filter((l) => l.startsWith("#EXTINF"))).toHaveLength(3)
    expect(trimmed?.playlist.endsWith("#EXT-X-ENDLIST")).toBe(true)
  })

  it("a window on segment boundaries keeps no neighbour; one past the end keeps the last segment", () => {
    expect(uris(trimHlsPlaylist(playlist([], 10), { start: 4, end: 8 })?.playlist ?? "")).toEqual(["seg2.ts", "seg3.ts"])
    expect(uris(trimHlsPlaylist(playlist([], 10), { start: 19, end: 25 })?.playlist ?? "")).toEqual(["seg9.ts"])
  })

  it("keeps EXT-X-MAP and the key in force; with AES-128 the media sequence moves to the first kept segment", () => {
    const text = playlist(['#EXT-X-MAP:URI="init.mp4"', "#EXT-X-MEDIA-SEQUENCE:7", '#EXT-X-KEY:METHOD=AES-128,URI="k1"'], 6, 2, (i) =>
      i === 3 ? ['#EXT-X-KEY:METHOD=AES-128,URI="k2"'] : []
    )
    const trimmed = trimHlsPlaylist(text, { start: 8.5, end: 9.5 })
    const lines = trimmed?.playlist.split("\n") ?? []
    expect(uris(trimmed?.playlist ?? "")).toEqual(["seg4.ts"])
    expect(lines).toContain('#EXT-X-MAP:URI="init.mp4"')
    // Both keys stay in order, so yt-dlp holds k2 when it reaches seg4, and IV = sequence 7 + 4 as in the whole playlist.
    expect(lines.filter((l) => l.startsWith("#EXT-X-KEY"))).toEqual([
      '#EXT-X-KEY:METHOD=AES-128,URI="k1"',
      '#EXT-X-KEY:METHOD=AES-128,URI="k2"'
    ])
    expect(lines).toContain("#EXT-X-MEDIA-SEQUENCE:11")
  })

  it("without keys the media sequence is left as it is", () => {
    const trimmed = trimHlsPlaylist(playlist(["#EXT-X-MEDIA-SEQUENCE:3"], 6), { start: 6, end: 7 })
    expect(trimmed?.playlist.split("\n")).toContain("#EXT-X-MEDIA-SEQUENCE:3")
  })

  it("writes out the byte offset of the first kept range, which yt-dlp would have taken from the dropped ones", () => {
    const text = playlist([], 4, 2, (i) => [i === 0 ? "#EXT-X-BYTERANGE:100@0" : "#EXT-X-BYTERANGE:100"])
    const trimmed = trimHlsPlaylist(text, { start: 4.5, end: 7 })
    const ranges = trimmed?.playlist.split("\n").filter((l) => l.startsWith("#EXT-X-BYTERANGE")) ?? []
    expect(ranges).toEqual(["#EXT-X-BYTERANGE:100@200", "#EXT-X-BYTERANGE:100"])
  })

  it("counts only the segments yt-dlp downloads: of the format's discontinuity group, not ads", () => {
    const text = [
      "#EXTM3U",
      "#EXTINF:5,",
      "a0.ts",
      "#EXT-X-DISCONTINUITY",
      "#EXTINF:2,",
      "b0.ts",
      "#UPLYNK-SEGMENT:x,0,ad",
      "#EXTINF:30,",
      "ad.ts",
      "#UPLYNK-SEGMENT:x,0,segment",
      "#EXTINF:2,",
      "b1.ts",
      "#EXTINF:2,",
      "b2.ts"
    ].join("\n")
    const trimmed = trimHlsPlaylist(text, { start: 2.5, end: 3 }, 1)
    expect(trimmed?.startSeconds).toBe(2)
    // a0 (another format's group) and the ad stay for yt-dlp to skip; b0 and b2 go.
    expect(uris(trimmed?.playlist ?? "")).toEqual(["a0.ts", "ad.ts", "b1.ts"])
    expect(trimmed?.playlist.split("\n")).toContain("#EXT-X-DISCONTINUITY")
  })

  it("cannot trim a segment without a duration, nor a window after every segment", () => {
    expect(trimHlsPlaylist("#EXTM3U\nseg0.ts\n", { start: 0, end: 1 })).toBeNull()
    expect(trimHlsPlaylist(playlist([], 2), { start: 10, end: 12 })).toBeNull()
  })
})

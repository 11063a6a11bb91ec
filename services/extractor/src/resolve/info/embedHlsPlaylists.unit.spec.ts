// Which formats get their HLS media playlist embedded, and what happens when a playlist cannot be had.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { embedHlsPlaylists, type FetchPlaylist } from "./embedHlsPlaylists.ts"

const playlist = (name: string) => `#EXTM3U\n#EXTINF:2,\n${name}-seg0.ts\n#EXT-X-ENDLIST\n`

const recording = (answers: Record<string, string | null>) => {
  const asked: Array<{ url: string; headers: Readonly<Record<string, string>> }> = []
  const fetch: FetchPlaylist = (url, headers) =>
    Effect.sync(() => {
      asked.push({ url, headers })
      return answers[url] ?? null
    })
  return { asked, fetch }
}

const hls = (id: string, extra: Record<string, unknown> = {}) => ({
  format_id: id,
  protocol: "m3u8_native",
  url: `https://cdn.test/${id}.m3u8`,
  ...extra
})

describe("embedHlsPlaylists", () => {
  it("embeds every native HLS format's playlist, with the page and format headers, and leaves other formats alone", async () => {
    const { asked, fetch } = recording({ "https://cdn.test/v240.m3u8": playlist("v240"), "https://cdn.test/aud.m3u8": playlist("aud") })
    const entry = {
      id: "x",
      http_headers: { "User-Agent": "UA", Referer: "https://page.test/" },
      formats: [
        hls("v240", { http_headers: { Referer: "https://player.test/" } }),
        hls("aud"),
        { format_id: "dash", protocol: "http_dash_segments", url: "https://cdn.test/m.mpd" },
        { format_id: "mp4", protocol: "https", url: "https://cdn.test/a.mp4" }
      ]
    }
    const result = await Effect.runPromise(embedHlsPlaylists(entry, fetch))
    const formats = result["formats"] as ReadonlyArray<Record<string, unknown>>
    expect(formats.map((f) => f["hls_media_playlist_data"] ?? null)).toEqual([playlist("v240"), playlist("aud"), null, null])
    expect(asked.map((a) => a.url)).toEqual(["https://cdn.test/v240.m3u8", "https://cdn.test/aud.m3u8"])
    expect(asked[0]?.headers).toEqual({ "User-Agent": "UA", Referer: "https://player.test/" })
  })

  it("leaves a format without data when its playlist did not arrive or is not a playlist", async () => {
    const { fetch } = recording({ "https://cdn.test/a.m3u8": null, "https://cdn.test/b.m3u8": "<html>login</html>" })
    const result = await Effect.runPromise(embedHlsPlaylists({ formats: [hls("a"), hls("b")] }, fetch))
    expect((result["formats"] as ReadonlyArray<Record<string, unknown>>).some((f) => "hls_media_playlist_data" in f)).toBe(false)
  })

  it("fetches nothing for a live stream, for ffmpeg-downloaded HLS, or for more playlists than a real page lists", async () => {
    const { asked, fetch } = recording({})
    await Effect.runPromise(embedHlsPlaylists({ is_live: true, formats: [hls("a")] }, fetch))
    await Effect.runPromise(embedHlsPlaylists({ formats: [{ ...hls("a"), protocol: "m3u8" }] }, fetch))
    await Effect.runPromise(embedHlsPlaylists({ formats: Array.from({ length: 33 }, (_, i) => hls(`v${i}`)) }, fetch))
    expect(asked).toEqual([])
  })
})

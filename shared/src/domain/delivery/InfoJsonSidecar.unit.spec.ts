// The info written beside a media keeps what describes it and loses headers, cookies, worker paths and signed URLs.
import { describe, expect, it } from "vitest"
import { infoJsonSidecar } from "./InfoJsonSidecar.ts"

describe("infoJsonSidecar", () => {
  it("drops credentials, paths and media URLs, strips other URLs' queries and keeps page URLs whole", () => {
    const written = JSON.parse(
      infoJsonSidecar({
        id: "abc",
        title: "T",
        url: "https://cdn.example/v?sig=secret",
        http_headers: { Cookie: "a=b" },
        cookies: "a=b",
        _filename: "/var/work/job/abc.mp4",
        formats: [{ url: "https://cdn.example/f?token=t" }],
        thumbnail: "https://img.example/t.jpg?expires=1&sig=secret",
        thumbnails: [{ id: "0", url: "https://img.example/0.jpg?sig=secret", width: 120 }],
        subtitles: { en: [{ ext: "vtt", url: "https://subs.example/en?sig=secret" }] },
        webpage_url: "https://www.example.com/watch?v=abc",
        tags: ["a"]
      })
    )
    expect(written).toEqual({
      id: "abc",
      title: "T",
      thumbnail: "https://img.example/t.jpg",
      thumbnails: [{ id: "0", width: 120 }],
      subtitles: { en: [{ ext: "vtt" }] },
      webpage_url: "https://www.example.com/watch?v=abc",
      tags: ["a"]
    })
  })
})

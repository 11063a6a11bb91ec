// The cookie platform rule: a URL's cookies are under its host's platform, whichever extractor later handles it.
import { describe, expect, it } from "vitest"
import { availablePlatforms } from "./availablePlatforms.ts"
import { cookiePlatformOfUrl, isCookiePlatform } from "./cookiePlatform.ts"

describe("cookiePlatformOfUrl", () => {
  it.each([
    ["https://vimeo.com/76979871", "vimeo"],
    ["https://www.tiktok.com/@a/video/1", "tiktok"],
    ["https://video.example.org/Mediasite/Play/0123456789abcdef0123456789abcdef1d", "generic"],
    ["http://127.0.0.1:8080/members/clip.html", "generic"]
  ])("%s -> %s", (url, platform) => {
    expect(cookiePlatformOfUrl(url)).toBe(platform)
  })

  it.each(["https://youtu.be/abc", "https://www.youtube.com/watch?v=abc", "not a url"])("%s has no cookies", (url) => {
    expect(cookiePlatformOfUrl(url)).toBeNull()
  })
})

describe("isCookiePlatform", () => {
  const platforms = availablePlatforms([
    { key: "Vimeo", name: "vimeo", description: null, working: true },
    { key: "Mediasite", name: "Mediasite", description: null, working: true },
    { key: "Generic", name: "generic", description: null, working: true }
  ])

  it("takes every id a URL can be classified as, and no id derived from an extractor (no URL could find it)", () => {
    expect(platforms.map((p) => [p.id, isCookiePlatform(p.id)])).toEqual([
      ["vimeo", true],
      ["mediasite", false],
      ["generic", true]
    ])
  })
})

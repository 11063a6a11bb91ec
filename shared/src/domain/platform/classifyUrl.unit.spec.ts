// URL classification: blocked hosts and short links are unsupported; curated hosts map to their platform; others are generic.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { classifyUrl } from "./classifyUrl.ts"

const platformOf = (url: string) => {
  const result = classifyUrl(new URL(url))
  return Result.isSuccess(result) ? result.success.id : result.failure._tag
}
const messageOf = (url: string) => {
  const result = classifyUrl(new URL(url))
  if (Result.isSuccess(result)) throw new Error(`expected ${url} to be unsupported`)
  return result.failure.message
}

describe("classifyUrl", () => {
  it.each([
    "https://www.youtube.com/watch?v=abc",
    "https://youtube.com/watch?v=abc",
    "https://m.youtube.com/watch?v=abc",
    "https://music.youtube.com/watch?v=abc"
  ])("rejects %s as unsupported", (url) => {
    expect(platformOf(url)).toBe("UnsupportedPlatform")
    expect(messageOf(url)).toContain("not a supported platform")
  })

  it.each(["https://youtu.be/abc", "https://bit.ly/xyz", "https://vm.tiktok.com/ZM123/"])(
    "rejects the short link %s, asking for the canonical link",
    (url) => {
      expect(platformOf(url)).toBe("UnsupportedPlatform")
      expect(messageOf(url)).toMatch(/canonical link/)
    }
  )

  it.each([
    ["https://vimeo.com/76979871", "vimeo"],
    ["https://player.vimeo.com/video/1", "vimeo"],
    ["https://VIMEO.com./1", "vimeo"],
    ["https://www.tiktok.com/@a/video/1", "tiktok"],
    ["https://x.com/a/status/1", "twitter"],
    ["https://soundcloud.com/a/b", "soundcloud"]
  ])("classifies %s as %s", (url, platform) => expect(platformOf(url)).toBe(platform))

  it.each(["https://example.org/video.mp4", "http://notvimeo.com/1", "https://cdn.example.net/live/index.m3u8"])(
    "classifies %s as generic",
    (url) => expect(platformOf(url)).toBe("generic")
  )
})

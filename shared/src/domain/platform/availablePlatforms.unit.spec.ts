// Offered platforms: curated entries whose extractor is installed (case-insensitive), always followed by generic.
import { describe, expect, it } from "vitest"
import { availablePlatforms } from "./availablePlatforms.ts"

describe("availablePlatforms", () => {
  it("offers only generic when no curated extractor is installed", () => {
    expect(availablePlatforms([]).map((p) => p.id)).toEqual(["generic"])
  })

  it("offers curated platforms whose extractor is installed, in table order, generic last", () => {
    const ids = availablePlatforms(["soundcloud", "Vimeo", "Youtube", "Generic"]).map((p) => p.id)
    expect(ids).toEqual(["vimeo", "soundcloud", "generic"])
  })

  it("never offers youtube even if yt-dlp has the extractor", () => {
    expect(availablePlatforms(["Youtube", "YoutubeTab"]).some((p) => p.id.includes("youtube"))).toBe(false)
  })

  it("offers a platform with several extractors when any one is installed", () => {
    expect(availablePlatforms(["TwitchClips"]).map((p) => p.id)).toContain("twitch")
  })
})

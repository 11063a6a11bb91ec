// Offered platforms: curated entries whose extractor works, one derived platform per other working extractor, generic last.
import { describe, expect, it } from "vitest"
import { availablePlatforms } from "./availablePlatforms.ts"
import { catalogExtractors, type ExtractorInfo } from "./CatalogEvent.ts"

const ie = (key: string, extra: Partial<ExtractorInfo> = {}): ExtractorInfo => ({
  key,
  name: key.toLowerCase(),
  description: null,
  working: true,
  ...extra
})

describe("availablePlatforms", () => {
  it("offers only generic when yt-dlp has no other extractor", () => {
    expect(availablePlatforms([ie("Generic")]).map((p) => p.id)).toEqual(["generic"])
  })

  it("offers curated platforms in table order, then derived ones by id, generic last", () => {
    const ids = availablePlatforms([ie("Soundcloud"), ie("ZDF"), ie("Vimeo"), ie("ArteTV"), ie("Generic")]).map((p) => p.id)
    expect(ids).toEqual(["vimeo", "soundcloud", "artetv", "zdf", "generic"])
  })

  it("names a derived platform by yt-dlp's description, else its extractor name", () => {
    const platforms = availablePlatforms([ie("ArteTV", { name: "ArteTV", description: "Arte.tv" }), ie("ZDF", { name: "ZDF" })])
    expect(platforms.map((p) => [p.id, p.name, p.capabilities, p.live === true])).toEqual([
      ["artetv", "Arte.tv", ["video", "audio", "metadata"], false],
      ["zdf", "ZDF", ["video", "audio", "metadata"], false],
      ["generic", "Generic (direct files, HTML5 pages, HLS/DASH)", ["video", "audio", "metadata"], true]
    ])
  })

  it("never offers youtube, nor an extractor yt-dlp marks broken", () => {
    const ids = availablePlatforms([ie("Youtube"), ie("YoutubeTab"), ie("Vimeo", { working: false }), ie("ZDF", { working: false })]).map(
      (p) => p.id
    )
    expect(ids).toEqual(["generic"])
  })

  it("offers a platform with several extractors once, when any one works", () => {
    const ids = availablePlatforms([ie("TwitchClips"), ie("TwitchVod")]).map((p) => p.id)
    expect(ids).toEqual(["twitch", "generic"])
  })

  it("reads a version 1 catalog (names from --list-extractors): broken ones dropped, names matched to curated keys", () => {
    const lines = ["twitch:vod", "archive.org", "vimeo", "zdf", "Tele5 (CURRENTLY BROKEN)", "youtube:tab", "generic"]
    const event = { _tag: "ExtractorCatalogPublished", v: 1, ytDlpVersion: "2026.10.26", extractors: lines, at: 0 } as const
    expect(availablePlatforms(catalogExtractors(event)).map((p) => p.id)).toEqual(["vimeo", "twitch", "archive_org", "zdf", "generic"])
  })

  it("advertises image nowhere", () => {
    const keys = ["Vimeo", "Instagram", "Twitter", "Reddit", "Tumblr", "Pinterest", "Imgur", "ZDF"].map((k) => ie(k))
    expect(availablePlatforms(keys).flatMap((p) => p.capabilities)).not.toContain("image")
  })
})

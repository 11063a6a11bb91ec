// The platform id of a media is the extractor that handled it: curated ids, generic, or the key's own id.
import { describe, expect, it } from "vitest"
import { isBlockedExtractor, platformIdOf } from "./platformIdOf.ts"

describe("platformIdOf", () => {
  it.each([
    ["Generic", "generic"],
    ["Vimeo", "vimeo"],
    ["TwitchClips", "twitch"],
    ["twitchvod", "twitch"],
    ["ArchiveOrg", "archive_org"],
    ["ArteTV", "artetv"],
    ["VKPlay", "vkplay"],
    ["Tele5", "tele5"],
    ["twitch:vod", "twitch"],
    ["archive.org", "archive_org"]
  ])("%s -> %s", (key, id) => expect(platformIdOf(key)).toBe(id))

  it("blocks every YouTube extractor, and only those", () => {
    expect(["Youtube", "YoutubeTab", "YoutubeClip"].every(isBlockedExtractor)).toBe(true)
    expect(isBlockedExtractor("Vimeo")).toBe(false)
  })
})

// What a resolve records of a live stream, from yt-dlp's info.
import { describe, expect, it } from "vitest"
import { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { liveStatusOf } from "@mds/shared/domain/media/LiveStatus"
import { Schema } from "effect"
import { describeLive } from "./describeLive.ts"

describe("describeLive", () => {
  it("takes yt-dlp's live_status, with the release time of an upcoming stream", () => {
    expect(describeLive({ live_status: "is_upcoming", release_timestamp: 1_800_000_000 })).toEqual({
      liveStatus: "is_upcoming",
      releaseAt: 1_800_000_000_000
    })
    expect(describeLive({ live_status: "is_live", release_timestamp: 1_800_000_000 })).toEqual({ liveStatus: "is_live" })
    expect(describeLive({ live_status: "post_live" })).toEqual({ liveStatus: "post_live" })
  })
  it("falls back to the is_live/was_live flags, and says nothing when yt-dlp said nothing", () => {
    expect(describeLive({ is_live: true })).toEqual({ liveStatus: "is_live" })
    expect(describeLive({ was_live: true })).toEqual({ liveStatus: "was_live" })
    expect(describeLive({})).toEqual({})
    expect(describeLive({ live_status: "something_new" })).toEqual({})
  })
})

describe("MediaResolved's live status at the boundary", () => {
  const decode = Schema.decodeUnknownSync(MediaResolved)
  const written = {
    _tag: "MediaResolved",
    v: 1,
    mediaId: "med_a",
    url: "https://x.example/a",
    webpageUrl: "https://x.example/a",
    platform: "generic",
    type: "video",
    title: "A",
    thumbnail: "",
    duration: 0,
    author: { name: "", username: "" },
    formats: [],
    resolvedAt: 1,
    expiresAt: 2
  }
  it("an event written before the field existed decodes, and reads as not_live", () => {
    const media = decode(written)
    expect(media.liveStatus).toBeUndefined()
    expect(liveStatusOf(media)).toBe("not_live")
  })
  it("decodes an upcoming media with its release time, and refuses a status yt-dlp does not have", () => {
    expect(decode({ ...written, liveStatus: "is_upcoming", releaseAt: 5 })).toMatchObject({ liveStatus: "is_upcoming", releaseAt: 5 })
    expect(() => decode({ ...written, liveStatus: "maybe" })).toThrow()
  })
})

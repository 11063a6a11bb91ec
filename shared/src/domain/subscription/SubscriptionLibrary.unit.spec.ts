import { describe, expect, it } from "vitest"
import { subscriptionBatchOptions } from "./SubscriptionLibrary.ts"

const show = { subscriptionId: "sub_1", playlistId: "med_pl", playlistTitle: "My Channel", url: "https://example.test/c" }
const delivery = { destinationId: "dst_1", pathTemplate: "{uploader}/{title}.{ext}", sidecars: ["nfo" as const] }

describe("subscriptionBatchOptions", () => {
  it("adds the show to a delivery order", () => {
    expect(subscriptionBatchOptions({ delivery }, show)?.delivery?.library).toEqual({
      subscriptionId: "sub_1",
      title: "My Channel",
      playlistId: "med_pl"
    })
  })

  it("leaves options without a destination as they are", () => {
    expect(subscriptionBatchOptions(undefined, show)).toBeUndefined()
    expect(subscriptionBatchOptions({ audio_only: true } as never, show)).toEqual({ audio_only: true })
  })

  it("names the show after the URL when the playlist has no title", () => {
    expect(subscriptionBatchOptions({ delivery }, { ...show, playlistTitle: " " })?.delivery?.library?.title).toBe("https://example.test/c")
  })
})

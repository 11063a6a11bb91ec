import { describe, expect, it } from "vitest"
import { impersonationFlags, isAntiBotChallenge } from "./AntiBotChallenge.ts"

describe("isAntiBotChallenge", () => {
  it("recognises yt-dlp's reports of a bot wall", () => {
    expect(
      isAntiBotChallenge(
        `ERROR: [generic] Got HTTP Error 403 caused by Cloudflare anti-bot challenge; try again with  --extractor-args "generic:impersonate"`
      )
    ).toBe(true)
    expect(
      isAntiBotChallenge("ERROR: [example] abc: This request requires browser impersonation, however you may be missing dependencies")
    ).toBe(true)
  })

  it("leaves plain 403s, rate limits and missing media alone", () => {
    expect(isAntiBotChallenge("ERROR: [generic] page: Unable to download webpage: HTTP Error 403: Forbidden")).toBe(false)
    expect(isAntiBotChallenge("ERROR: HTTP Error 429: Too Many Requests")).toBe(false)
    expect(isAntiBotChallenge("ERROR: [generic] Unable to download webpage: HTTP Error 404: Not Found")).toBe(false)
  })
})

describe("impersonationFlags", () => {
  it("asks every extractor, the generic one included, to impersonate the target", () => {
    expect(impersonationFlags("chrome")).toEqual({ impersonate: "chrome", extractorArgs: "generic:impersonate=chrome" })
  })
})

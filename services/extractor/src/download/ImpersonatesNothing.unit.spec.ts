// Which yt-dlp runs may keep curl_cffi out: only a run from a stored info that asks for no impersonation, without flags.
import { describe, expect, it } from "vitest"
import { impersonatesNothing, type MediaSource } from "./FetchOptions.ts"

const stored = (impersonates: boolean): MediaSource => ({ _tag: "StoredInfo", infoPath: "/w/i.json", clipStarts: null, impersonates })

describe("impersonatesNothing", () => {
  it("is true only for a stored info without impersonate, run without impersonation flags", () => {
    expect(impersonatesNothing(stored(false), {})).toBe(true)
    expect(impersonatesNothing(stored(false), { impersonate: "chrome" })).toBe(false)
    expect(impersonatesNothing(stored(true), {})).toBe(false)
    // A page run's extractor may impersonate unasked.
    expect(impersonatesNothing({ _tag: "Page", url: new URL("https://example.com/v") }, {})).toBe(false)
  })
})

import { describe, expect, it } from "vitest"
import { latestVersionOf } from "./PipIndexOutput.ts"

describe("latestVersionOf", () => {
  it("reads the version pip lists first", () => {
    const output = "yt-dlp (2026.10.26)\nAvailable versions: 2026.10.26, 2026.10.21\n  INSTALLED: 2026.10.21\n  LATEST:    2026.10.26\n"
    expect(latestVersionOf(output, "yt-dlp")).toBe("2026.10.26")
  })

  it("reads a pre-release (nightly) version", () => {
    expect(latestVersionOf("yt-dlp (2026.11.2.232734.dev0)\nAvailable versions: 2026.11.2.232734.dev0\n", "yt-dlp")).toBe(
      "2026.11.2.232734.dev0"
    )
  })

  it("finds nothing in an error or in another package's line", () => {
    expect(latestVersionOf("ERROR: No matching distribution found for yt-dlp\n", "yt-dlp")).toBeNull()
    expect(latestVersionOf("yt-dlp-ejs (0.3.0)\n", "yt-dlp")).toBeNull()
  })
})

// What an answer may show of an access key id.
import { describe, expect, it } from "vitest"
import { accessKeyHint, maskedAccessKey } from "./DestinationMask.ts"

describe("access key masking", () => {
  it("keeps the last 4 characters of a key of 16 or more", () => {
    expect(accessKeyHint("AKIAIOSFODNN7EXAMPLE")).toBe("MPLE")
    expect(maskedAccessKey(accessKeyHint("AKIAIOSFODNN7EXAMPLE"))).toBe("****MPLE")
  })

  it("keeps at most a quarter of a short key, and nothing of one under 4 characters", () => {
    expect(accessKeyHint("abcdefgh")).toBe("gh")
    expect(accessKeyHint("abc")).toBe("")
    for (const key of ["abc", "abcd", "abcdefg", "abcdefghijklmnop", "x".repeat(128)]) {
      expect(accessKeyHint(key).length).toBeLessThanOrEqual(Math.min(4, key.length / 4))
    }
  })
})

// The pooled random bytes: the lengths asked for, never the same bytes twice, across many pool replacements.
import { describe, expect, it } from "vitest"
import { takeRandomBytes } from "./RandomPool.ts"

describe("takeRandomBytes", () => {
  it("hands out fresh bytes of the asked length, none repeated across pool replacements", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 3_000; i++) {
      const bytes = takeRandomBytes(16)
      expect(bytes.length).toBe(16)
      seen.add(bytes.toString("hex"))
    }
    expect(seen.size).toBe(3_000)
  })

  it("keeps bytes already handed out when the pool is replaced", () => {
    const first = takeRandomBytes(24)
    const copy = Buffer.from(first)
    for (let i = 0; i < 1_000; i++) takeRandomBytes(24)
    expect(first.equals(copy)).toBe(true)
  })

  it("serves lengths beyond the pool directly", () => {
    expect(takeRandomBytes(10_000).length).toBe(10_000)
  })
})

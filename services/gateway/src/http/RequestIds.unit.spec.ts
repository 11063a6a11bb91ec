// Request ids from the pooled random bytes: the documented shape, and no repeats across many pool refills.
import { describe, expect, it } from "vitest"
import { newRequestId } from "./RequestIds.ts"

describe("newRequestId", () => {
  it("is req_ and 24 lowercase hex digits, different every time across pool refills", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 5_000; i++) {
      const id = newRequestId()
      expect(id).toMatch(/^req_[0-9a-f]{24}$/)
      seen.add(id)
    }
    expect(seen.size).toBe(5_000)
  })
})

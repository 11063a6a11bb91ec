// Given subscription bodies, then what the request schema (the one the gateway and the dashboard decode with) accepts.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CreateSubscriptionRequest, publishedAfterMs } from "./Subscriptions.ts"

const decode = Schema.decodeUnknownResult(CreateSubscriptionRequest)
const base = { url: "https://example.com/feed.xml", format: "audio_mp3" }
const accepts = (body: object) => decode({ ...base, ...body })._tag === "Success"

describe("CreateSubscriptionRequest", () => {
  it("takes check_every from 900 s to 30 days, no further (a next check past JavaScript's dates stalled every reader)", () => {
    expect(accepts({ check_every: 900 })).toBe(true)
    expect(accepts({ check_every: 2_592_000 })).toBe(true)
    for (const check_every of [899, 2_592_001, 9_000_000_000_000, 1.5, -1, "3600"])
      expect(accepts({ check_every }), String(check_every)).toBe(false)
  })

  it("takes backfill 0..50", () => {
    expect(accepts({ backfill: 0 })).toBe(true)
    expect(accepts({ backfill: 50 })).toBe(true)
    for (const backfill of [-1, 51, 2.5]) expect(accepts({ backfill }), String(backfill)).toBe(false)
  })

  it("takes a URL like every other URL field: absolute http(s), at most 2048 characters", () => {
    expect(accepts({ url: `https://example.com/${"a".repeat(2048 - 20)}` })).toBe(true)
    expect(accepts({ url: `https://example.com/${"a".repeat(2048 - 19)}` })).toBe(false)
    expect(accepts({ url: "example.com/feed" })).toBe(false)
    expect(accepts({ format: "x".repeat(65) })).toBe(false)
  })

  it("takes durations of 0 to a day, min_duration at most max_duration", () => {
    expect(accepts({ filters: { min_duration: 60, max_duration: 60 } })).toBe(true)
    expect(accepts({ filters: { min_duration: 61, max_duration: 60 } })).toBe(false)
    expect(accepts({ filters: { max_duration: 86_401 } })).toBe(false)
    const refused = decode({ ...base, filters: { min_duration: 600, max_duration: 60 } })
    expect(refused._tag === "Failure" ? refused.failure.message : "").toContain("must be at most max_duration (60)")
  })

  it("takes published_after as an RFC 3339 date-time or a YYYY-MM-DD day, nothing else Date.parse reads", () => {
    for (const day of ["2024-03-01", "2024-03-01T10:00:00Z", "2024-03-01T10:00:00.5+02:00", "2024-02-29"]) {
      expect(accepts({ filters: { published_after: day } }), day).toBe(true)
    }
    for (const day of ["2024", "2024-03", "March 1, 2024", "2023-02-29", "2024-13-01", "2024-03-01T25:00:00Z", "2024-03-01T10:00"]) {
      expect(accepts({ filters: { published_after: day } }), day).toBe(false)
    }
  })

  it("reads a day as its start in UTC and a date-time with its offset", () => {
    expect(publishedAfterMs("2024-03-01")).toBe(Date.UTC(2024, 2, 1))
    expect(publishedAfterMs("2024-03-01T10:00:00+02:00")).toBe(Date.UTC(2024, 2, 1, 8))
  })
})

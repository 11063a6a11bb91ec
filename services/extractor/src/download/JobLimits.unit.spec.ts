import { describe, expect, it } from "vitest"
import { byteCapOf, limitBreach, withoutByteCaps } from "./JobLimits.ts"

const limits = { maxDurationSeconds: 600, maxFileBytes: 50 * 1024 * 1024 }

describe("limitBreach", () => {
  it("given media within both limits, then no breach", () => {
    expect(limitBreach(limits, { durationSeconds: 600, bytes: 50 * 1024 * 1024 })).toBeNull()
  })
  it("given a longer media, then media_too_long naming both durations", () => {
    const breach = limitBreach(limits, { durationSeconds: 601.4 })
    expect(breach?.code).toBe("media_too_long")
    expect(breach?.message).toContain("601 s")
    expect(breach?.message).toContain("600 s")
  })
  it("given more bytes than allowed (announced, declared or on disk), then file_too_large naming the limit", () => {
    const breach = limitBreach(limits, { bytes: 50 * 1024 * 1024 + 1 })
    expect(breach?.code).toBe("file_too_large")
    expect(breach?.message).toContain("50 MB")
  })
  it("judges the duration first when both are over", () => {
    expect(limitBreach(limits, { durationSeconds: 7200, bytes: 1e12 })?.code).toBe("media_too_long")
  })
  it("given unknown facts, then no breach (they are judged again later)", () => {
    expect(limitBreach(limits, {})).toBeNull()
    expect(limitBreach(limits, { durationSeconds: null, bytes: null })).toBeNull()
  })
  it("given limits of 0, then nothing is limited", () => {
    expect(limitBreach({ maxDurationSeconds: 0, maxFileBytes: 0 }, { durationSeconds: 1e9, bytes: 1e15 })).toBeNull()
  })
  it("states small limits with a decimal", () => {
    expect(limitBreach({ maxDurationSeconds: 0, maxFileBytes: 512 * 1024 }, { bytes: 600_000 })?.message).toContain("0.5 MB")
  })
  it("given more bytes than the project's monthly quota leaves, then quota_exceeded", () => {
    const breach = limitBreach({ ...limits, quotaBytesLeft: 1024 * 1024 }, { bytes: 1024 * 1024 + 1 })
    expect(breach?.code).toBe("quota_exceeded")
    expect(breach?.message).toContain("1.0 MB left")
  })
  it("given exactly what the quota leaves, then no breach", () => {
    expect(limitBreach({ ...limits, quotaBytesLeft: 1024 * 1024 }, { bytes: 1024 * 1024 })).toBeNull()
  })
  it("names the server's per-job limit before the project's quota", () => {
    expect(limitBreach({ ...limits, quotaBytesLeft: 10 }, { bytes: 1e12 })?.code).toBe("file_too_large")
  })
})

describe("byteCapOf (a live recording's cap)", () => {
  it("is the smaller of MAX_FILE_SIZE_MB and what the quota left", () => {
    expect(byteCapOf({ ...limits, quotaBytesLeft: 1000 })).toBe(1000)
    expect(byteCapOf({ ...limits, quotaBytesLeft: 1e12 })).toBe(50 * 1024 * 1024)
  })
  it("is the file-size limit without a quota, the quota without a file-size limit, null without either", () => {
    expect(byteCapOf({ ...limits, quotaBytesLeft: null })).toBe(50 * 1024 * 1024)
    expect(byteCapOf({ maxDurationSeconds: 0, maxFileBytes: 0, quotaBytesLeft: 7 })).toBe(7)
    expect(byteCapOf({ maxDurationSeconds: 0, maxFileBytes: 0 })).toBeNull()
  })
  it("a recording's facts are judged without the byte caps, its duration still with its limit", () => {
    const judged = withoutByteCaps({ ...limits, quotaBytesLeft: 10 })
    expect(limitBreach(judged, { bytes: 1e12 })).toBeNull()
    expect(limitBreach(judged, { durationSeconds: 601 })?.code).toBe("media_too_long")
  })
})

// Specifications of the per-platform breaker: outcomes, the pause after repeated blocks, and the reported health.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { type BreakerPolicy, PlatformHealthDecider, pauseOpenedBy, viewPlatformHealth } from "./PlatformHealthDecider.ts"
import type { PlatformHealthEvent, PlatformOutcome } from "./PlatformHealthEvent.ts"

const policy: BreakerPolicy = { window: 4, recentMs: 10_000, blocksToPause: 2, pauseMs: 60_000 }
const given = DeciderSpecification.for(PlatformHealthDecider)
const record = (outcome: PlatformOutcome, now: number) => ({ _tag: "RecordOutcome", platform: "vimeo", outcome, now, policy }) as const

/** The events of a sequence of outcomes, each decided on the state the previous ones left. */
const history = (outcomes: ReadonlyArray<readonly [PlatformOutcome, number]>) => {
  const events: Array<PlatformHealthEvent> = []
  for (const [outcome, now] of outcomes) {
    const decided = PlatformHealthDecider.decide(record(outcome, now), foldEvents(PlatformHealthDecider, events))
    if (Result.isFailure(decided)) throw new Error("unexpected rejection")
    events.push(...decided.success)
  }
  return events
}

describe("PlatformHealthDecider", () => {
  it("records an outcome with the state after it", () =>
    given([])
      .when(record("ok", 100))
      .then([
        {
          _tag: "PlatformOutcomeRecorded",
          v: 1,
          platform: "vimeo",
          outcome: "ok",
          at: 100,
          state: { recent: [{ outcome: "ok", at: 100 }], consecutiveBlocks: 0, pausedUntil: null }
        }
      ]))

  it("pauses the platform for pauseMs after blocksToPause blocks in a row", () => {
    const events = history([
      ["blocked", 100],
      ["blocked", 200]
    ])
    expect(events.map((e) => e._tag)).toEqual(["PlatformOutcomeRecorded", "PlatformOutcomeRecorded", "PlatformPaused"])
    expect(events.at(-1)).toMatchObject({ _tag: "PlatformPaused", until: 60_200, state: { pausedUntil: 60_200, consecutiveBlocks: 0 } })
  })

  it("any other outcome in between resets the count", () => {
    const events = history([
      ["blocked", 100],
      ["failed", 150],
      ["blocked", 200]
    ])
    expect(events.some((e) => e._tag === "PlatformPaused")).toBe(false)
  })

  it("does not pause again while paused, and can pause again after the pause", () => {
    const during = history([
      ["blocked", 100],
      ["blocked", 200],
      ["blocked", 300],
      ["blocked", 400]
    ])
    expect(during.filter((e) => e._tag === "PlatformPaused")).toHaveLength(1)
    const after = history([
      ["blocked", 100],
      ["blocked", 200],
      ["blocked", 70_000],
      ["blocked", 70_100]
    ])
    expect(after.filter((e) => e._tag === "PlatformPaused").map((e) => (e as { until: number }).until)).toEqual([60_200, 130_100])
  })

  it("keeps only the window's latest outcomes, within recentMs", () => {
    const events = history([
      ["ok", 1],
      ["ok", 2],
      ["failed", 3],
      ["ok", 4],
      ["failed", 5]
    ])
    expect(events.at(-1)?.state.recent.map((r) => r.at)).toEqual([2, 3, 4, 5])
    const later = history([
      ["ok", 1],
      ["failed", 20_000]
    ])
    expect(later.at(-1)?.state.recent).toEqual([{ outcome: "failed", at: 20_000 }])
  })
})

describe("viewPlatformHealth", () => {
  it("reports the success rate of recent outcomes, degraded below one half, paused while the breaker is open", () => {
    const state = foldEvents(
      PlatformHealthDecider,
      history([
        ["ok", 100],
        ["failed", 200],
        ["failed", 300]
      ])
    )
    expect(viewPlatformHealth(state, 400, policy)).toEqual({ successRate: 0.333, sampleSize: 3, status: "degraded", pausedUntil: null })
    expect(viewPlatformHealth(state, 50_000, policy)).toEqual({ successRate: null, sampleSize: 0, status: "ok", pausedUntil: null })
    const paused = foldEvents(
      PlatformHealthDecider,
      history([
        ["blocked", 100],
        ["blocked", 200]
      ])
    )
    expect(viewPlatformHealth(paused, 1_000, policy)).toMatchObject({ status: "paused", pausedUntil: 60_200, successRate: 0 })
    expect(viewPlatformHealth(paused, 60_200, policy)).toMatchObject({ status: "ok", pausedUntil: null })
  })

  it("tells which decision opened the breaker, and when it closes", () => {
    const blocked = history([["blocked", 100]])
    expect(pauseOpenedBy(blocked)).toBeNull()
    const opening = history([
      ["blocked", 100],
      ["blocked", 200]
    ]).slice(blocked.length)
    expect(pauseOpenedBy(opening)).toMatchObject({ until: 200 + policy.pauseMs })
  })
})

// Per-platform health and circuit breaker: records extraction outcomes, and pauses the platform after repeated
// blocks (HTTP 429, bot checks) until a stated time. Pure.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import type { PlatformHealthEvent, PlatformHealthState, PlatformOutcome } from "./PlatformHealthEvent.ts"

export interface BreakerPolicy {
  /** Outcomes kept for the success rate. */
  readonly window: number
  /** Outcomes older than this no longer count. */
  readonly recentMs: number
  /** Blocked outcomes in a row that open the breaker. */
  readonly blocksToPause: number
  readonly pauseMs: number
}

export const defaultBreakerPolicy: BreakerPolicy = { window: 50, recentMs: 3_600_000, blocksToPause: 3, pauseMs: 15 * 60_000 }

export interface RecordOutcome {
  readonly _tag: "RecordOutcome"
  readonly platform: string
  readonly outcome: PlatformOutcome
  readonly now: number
  readonly policy: BreakerPolicy
}

export const initialPlatformHealth = (): PlatformHealthState => ({ recent: [], consecutiveBlocks: 0, pausedUntil: null })

export const evolvePlatformHealth = (_state: PlatformHealthState, event: PlatformHealthEvent): PlatformHealthState => event.state

export const decidePlatformHealth = (
  command: RecordOutcome,
  state: PlatformHealthState
): Result.Result<ReadonlyArray<PlatformHealthEvent>, never> => {
  const { now, outcome, platform, policy } = command
  const recent = [...state.recent.filter((item) => item.at > now - policy.recentMs), { outcome, at: now }].slice(-policy.window)
  const pausedNow = state.pausedUntil !== null && state.pausedUntil > now
  const consecutiveBlocks = outcome === "blocked" ? state.consecutiveBlocks + 1 : 0
  const recorded: PlatformHealthEvent = {
    _tag: "PlatformOutcomeRecorded",
    v: 1,
    platform,
    outcome,
    at: now,
    state: { recent, consecutiveBlocks, pausedUntil: pausedNow ? state.pausedUntil : null }
  }
  if (pausedNow || consecutiveBlocks < policy.blocksToPause) return Result.succeed([recorded])
  const until = now + policy.pauseMs
  return Result.succeed([
    recorded,
    {
      _tag: "PlatformPaused",
      v: 1,
      platform,
      until,
      reason: `${consecutiveBlocks} blocked requests in a row (rate limit or bot check)`,
      at: now,
      state: { recent, consecutiveBlocks: 0, pausedUntil: until }
    }
  ])
}

/** The pause a decision opened (the breaker), if it opened one: what is worth a warning. */
export const pauseOpenedBy = (events: ReadonlyArray<PlatformHealthEvent>): { readonly until: number; readonly reason: string } | null => {
  for (const event of events) if (event._tag === "PlatformPaused") return { until: event.until, reason: event.reason }
  return null
}

export const PlatformHealthDecider: Decider<RecordOutcome, PlatformHealthEvent, PlatformHealthState, never> = {
  initialState: initialPlatformHealth,
  evolve: evolvePlatformHealth,
  decide: decidePlatformHealth
}

export interface PlatformHealthView {
  /** Share of recent outcomes that succeeded, 0-1; null without recent outcomes. */
  readonly successRate: number | null
  readonly sampleSize: number
  readonly status: "ok" | "degraded" | "paused"
  readonly pausedUntil: number | null
}

/** What GET /platforms reports: paused while the breaker is open, degraded below half successes. */
export const viewPlatformHealth = (
  state: PlatformHealthState,
  now: number,
  policy: Pick<BreakerPolicy, "recentMs">
): PlatformHealthView => {
  const recent = state.recent.filter((item) => item.at > now - policy.recentMs)
  const successes = recent.filter((item) => item.outcome === "ok").length
  const successRate = recent.length === 0 ? null : Math.round((successes / recent.length) * 1000) / 1000
  const paused = state.pausedUntil !== null && state.pausedUntil > now
  return {
    successRate,
    sampleSize: recent.length,
    status: paused ? "paused" : successRate !== null && successRate < 0.5 ? "degraded" : "ok",
    pausedUntil: paused ? state.pausedUntil : null
  }
}

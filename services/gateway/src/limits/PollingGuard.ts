// Answers 429 to a key polling one job faster than every 2 s (the spec's client rule), per gateway process.
import { Config, Context, Effect, Layer } from "effect"
import { PollingTooFast } from "./LimitErrors.ts"
import { judgePoll, type PollPolicy } from "./PollInterval.ts"

/** Remembered polls; the oldest go first when there are more (a poll that old is on time anyway). */
const MAX_TRACKED = 100_000

export class PollingGuard extends Context.Service<
  PollingGuard,
  {
    /** PollingTooFast when the key's last answered poll of this job is too recent at `now`, else undefined. */
    check(keyId: string, jobId: string, now: number): PollingTooFast | undefined
    /** Records an answered poll (only found jobs count: an unknown id is a 404 at any pace). */
    record(keyId: string, jobId: string, now: number): void
  }
>()("mds/gateway/limits/PollingGuard") {
  static readonly config = Config.Number("API_MIN_POLL_INTERVAL_SECONDS").pipe(
    Config.withDefault(2),
    Config.map((seconds): PollPolicy => ({ minIntervalMs: seconds * 1000, toleranceMs: seconds * 100 }))
  )

  static readonly layer = Layer.effect(
    PollingGuard,
    Effect.gen(function* () {
      const policy = yield* PollingGuard.config
      // Insertion order is poll order (a recorded poll is re-inserted), so the stalest entries are at the front.
      const lastPoll = new Map<string, number>()
      const keyOf = (keyId: string, jobId: string) => `${keyId}:${jobId}`

      const forgetStale = (now: number) => {
        for (const [key, at] of lastPoll) {
          if (now - at < policy.minIntervalMs && lastPoll.size <= MAX_TRACKED) break
          lastPoll.delete(key)
        }
      }

      const check = (keyId: string, jobId: string, now: number): PollingTooFast | undefined => {
        const verdict = judgePoll(policy, lastPoll.get(keyOf(keyId, jobId)), now)
        if (verdict._tag === "OnTime") return undefined
        return new PollingTooFast({ jobId, minIntervalSeconds: policy.minIntervalMs / 1000, retryAfterSeconds: verdict.retryAfterSeconds })
      }

      const record = (keyId: string, jobId: string, now: number) => {
        if (policy.minIntervalMs <= 0) return
        const key = keyOf(keyId, jobId)
        lastPoll.delete(key)
        lastPoll.set(key, now)
        forgetStale(now)
      }

      return PollingGuard.of({ check, record })
    })
  )
}

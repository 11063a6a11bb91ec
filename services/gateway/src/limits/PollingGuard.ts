// Answers 429 to a key polling one job faster than every 2 s (the spec's client rule), per gateway process.
import { Clock, Config, Context, Effect, Layer } from "effect"
import { PollingTooFast } from "./LimitErrors.ts"
import { judgePoll, type PollPolicy } from "./PollInterval.ts"

/** Remembered polls; the oldest go first when there are more (a poll that old is on time anyway). */
const MAX_TRACKED = 100_000

export class PollingGuard extends Context.Service<PollingGuard, {
  /** Fails with PollingTooFast when the key's last answered poll of this job is too recent. */
  check(keyId: string, jobId: string): Effect.Effect<void, PollingTooFast>
  /** Records an answered poll (only found jobs count: an unknown id is a 404 at any pace). */
  record(keyId: string, jobId: string): Effect.Effect<void>
  /** check, synchronously at `now`: the failure, or undefined when the poll is on time (see JobReadShortcut). */
  checkNow(keyId: string, jobId: string, now: number): PollingTooFast | undefined
  /** record, synchronously at `now`. */
  recordNow(keyId: string, jobId: string, now: number): void
}>()("mds/gateway/limits/PollingGuard") {
  static readonly config = Config.Number("API_MIN_POLL_INTERVAL_SECONDS").pipe(
    Config.withDefault(2),
    Config.map((seconds): PollPolicy => ({ minIntervalMs: seconds * 1000, toleranceMs: seconds * 100 }))
  )

  static readonly layer = Layer.effect(
    PollingGuard,
    Effect.gen(function*() {
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

      const checkNow = (keyId: string, jobId: string, now: number): PollingTooFast | undefined => {
        const verdict = judgePoll(policy, lastPoll.get(keyOf(keyId, jobId)), now)
        if (verdict._tag === "OnTime") return undefined
        return new PollingTooFast({ jobId, minIntervalSeconds: policy.minIntervalMs / 1000, retryAfterSeconds: verdict.retryAfterSeconds })
      }

      const recordNow = (keyId: string, jobId: string, now: number) => {
        if (policy.minIntervalMs <= 0) return
        const key = keyOf(keyId, jobId)
        lastPoll.delete(key)
        lastPoll.set(key, now)
        forgetStale(now)
      }

      // Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
      const check = Effect.fnUntraced(function*(keyId: string, jobId: string) {
        const tooFast = checkNow(keyId, jobId, yield* Clock.currentTimeMillis)
        if (tooFast !== undefined) return yield* tooFast
      })

      const record = Effect.fnUntraced(function*(keyId: string, jobId: string) {
        recordNow(keyId, jobId, yield* Clock.currentTimeMillis)
      })

      return PollingGuard.of({ check, record, checkNow, recordNow })
    })
  )
}

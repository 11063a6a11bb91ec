// Per-key request rate limit of this gateway process: a fixed window per key, with RateLimit-* headers.
import { Config, Context, Effect, Layer } from "effect"
import { RateLimitExceeded } from "./LimitErrors.ts"
import { type RateDecision, type RatePolicy, rateLimitHeaders, type RateWindow, takeRequest } from "./RateWindow.ts"

export interface RateQuota {
  /** Headers for the response (empty when rate limiting is off). */
  readonly headers: Readonly<Record<string, string>>
}

const UNLIMITED: RateQuota = { headers: {} }

/** Windows of keys that went quiet are dropped once there are this many, so memory follows the active keys. */
const SWEEP_THRESHOLD = 10_000

export class RequestRateLimiter extends Context.Service<
  RequestRateLimiter,
  {
    /** Counts one request of the key at `now`; RateLimitExceeded (429) when its window is used up. */
    take(keyId: string, now: number): RateQuota | RateLimitExceeded
  }
>()("mds/gateway/limits/RequestRateLimiter") {
  static readonly config = Config.all({
    limit: Config.Int("API_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600)),
    windowMs: Config.succeed(60_000)
  })

  static readonly layer = Layer.effect(
    RequestRateLimiter,
    Effect.gen(function* () {
      const policy: RatePolicy = yield* RequestRateLimiter.config
      const windows = new Map<string, RateWindow>()

      const sweep = (now: number) => {
        if (windows.size < SWEEP_THRESHOLD) return
        for (const [keyId, window] of windows) if (now >= window.startedAt + policy.windowMs) windows.delete(keyId)
      }

      const take = (keyId: string, now: number): RateQuota | RateLimitExceeded => {
        if (policy.limit <= 0) return UNLIMITED
        sweep(now)
        const decision: RateDecision = takeRequest(policy, windows.get(keyId), now)
        windows.set(keyId, decision.window)
        if (!decision.allowed) {
          return new RateLimitExceeded({
            limit: policy.limit,
            windowSeconds: Math.round(policy.windowMs / 1000),
            retryAfterSeconds: decision.resetSeconds
          })
        }
        return { headers: rateLimitHeaders(policy, decision) }
      }

      return RequestRateLimiter.of({ take })
    })
  )
}

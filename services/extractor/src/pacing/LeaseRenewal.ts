// Keeps one run's pacing lease alive until the run ends: renewed well within its lifetime, retried through NATS outages.
import { Clock, Effect } from "effect"
import type { LeaseBucket } from "./LeaseBucket.ts"

/** Why a lease ended while its run still went on; the run must stop, since another may hold the key now. */
export type LeaseLoss = "taken" | "expired"

/**
 * Renews every third of the bucket's lifetime. A renewal that fails (NATS unreachable, a leader election) is retried
 * every `retryEveryMs` for as long as the lease can still be alive; the lease is lost when the key is no longer ours
 * ("taken": it expired and was deleted or claimed again) or when no renewal got through for a whole lifetime
 * ("expired"). Returns only then; runs forever otherwise (the run's scope ends it).
 */
export const keepLeaseRenewed = (bucket: LeaseBucket, key: string, value: string, revision: number, retryEveryMs: number) =>
  Effect.gen(function* () {
    const renewEveryMs = Math.max(250, Math.floor(bucket.ttlMs / 3))
    let current = revision
    // The server stamps the write when it arrives, at the earliest when it was sent: time is measured from the send.
    let renewedAt = yield* Clock.currentTimeMillis
    for (;;) {
      yield* Effect.sleep(renewEveryMs)
      for (;;) {
        const sentAt = yield* Clock.currentTimeMillis
        const renewed = yield* Effect.result(bucket.update(key, value, current))
        if (renewed._tag === "Success") {
          if (renewed.success === "lost") return "taken" as LeaseLoss
          current = renewed.success
          renewedAt = sentAt
          break
        }
        if ((yield* Clock.currentTimeMillis) - renewedAt >= bucket.ttlMs) return "expired" as LeaseLoss
        yield* Effect.logWarning("pacing lease not renewed; retrying", { key, message: renewed.failure.message })
        yield* Effect.sleep(retryEveryMs)
      }
    }
  })

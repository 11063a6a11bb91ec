// Extension: who runs a subscription's check of one due time, across every aggregator: the first to create its KV key.
import { Context, Effect, Layer } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { openKvBucket, readModelError } from "@mds/shared/readmodel/kv/KvBucket"

export const CHECK_LOCKS_BUCKET = "mds_subscription_checks"

export interface CheckLocksShape {
  /**
   * True for exactly one caller per (subscription, due time) until the lock's age passes: a check abandoned by a
   * process that died is taken again then (the check repeats safely: its claims, batch and record are its own).
   */
  take(subscriptionId: string, dueAt: number): Effect.Effect<boolean>
}

export class CheckLocks extends Context.Service<CheckLocks, CheckLocksShape>()("mds/aggregator/CheckLocks") {
  static readonly layer = Layer.effect(
    CheckLocks,
    Effect.gen(function* () {
      // Longer than a check may take (the resolve's own limit is 120 s).
      const lockMs = yield* secondsAsMs("SUBSCRIPTION_CHECK_LOCK_SECONDS", 300)
      const kv = yield* openKvBucket(CHECK_LOCKS_BUCKET, lockMs)
      return CheckLocks.of({
        take: (subscriptionId, dueAt) =>
          Effect.tryPromise({
            try: () => kv.create(`${subscriptionId}.${dueAt}`, String(Date.now())),
            catch: readModelError("take a check lock")
          }).pipe(
            Effect.as(true),
            // The key exists (another runner has the check) or the bucket cannot be reached: the next tick asks again.
            Effect.catch(() => Effect.succeed(false))
          )
      })
    })
  )
}

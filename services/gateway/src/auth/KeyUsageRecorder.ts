// Records when keys were last used without a write per request: uses coalesce in memory and flush as one KeyUsed per key.
import { recordKeyUse } from "@mds/shared/application/account/KeyUsageFacts"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { Config, Context, Duration, Effect, Layer } from "effect"
import { makeUsageLedger, type PendingUse } from "./UsageLedger.ts"

export class KeyUsageRecorder extends Context.Service<
  KeyUsageRecorder,
  {
    /** Notes that the key authenticated a request at `at`: synchronous, never fails and never waits for I/O. */
    touch(use: PendingUse): void
    /** Appends one KeyUsed per key used since the last flush; returns how many were appended. */
    readonly flush: Effect.Effect<number>
  }
>()("mds/gateway/auth/KeyUsageRecorder") {
  static readonly config = Config.Int("KEY_LAST_USED_FLUSH_SECONDS").pipe(Config.withDefault(30))

  static readonly layer = Layer.effect(
    KeyUsageRecorder,
    Effect.gen(function* () {
      const provideStore = Effect.provideService(EventStore, yield* EventStore)
      const intervalSeconds = yield* KeyUsageRecorder.config
      const ledger = makeUsageLedger()

      const appendOne = (use: PendingUse) => recordKeyUse(use.keyId)({ _tag: "KeyUsed", v: 1, ...use }).pipe(provideStore)

      const flush = Effect.gen(function* () {
        const uses = ledger.drain()
        if (uses.length === 0) return 0
        const results = yield* Effect.forEach(uses, (use) => Effect.result(appendOne(use)), { concurrency: 8 })
        const failed = uses.filter((_, i) => results[i]?._tag === "Failure")
        if (failed.length > 0) {
          // Kept for the next flush: a last-used time is worth a retry, never worth failing a request for.
          ledger.restore(failed)
          yield* Effect.logWarning("key usage flush failed; will retry").pipe(Effect.annotateLogs({ keys: failed.length }))
        }
        return uses.length - failed.length
      }).pipe(Effect.withSpan("KeyUsageRecorder.flush"))

      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(Duration.seconds(intervalSeconds)), flush)))
      // What was used since the last tick is written on the way out (a clean stop, not a crash).
      yield* Effect.addFinalizer(() => Effect.asVoid(flush))

      return KeyUsageRecorder.of({ touch: ledger.touch, flush })
    })
  )
}

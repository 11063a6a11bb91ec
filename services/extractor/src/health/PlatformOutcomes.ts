// Records each resolve and download outcome on its platform's health subject; the decider opens the breaker.
import { PlatformBreakerConfig } from "@mds/shared/config/PlatformBreaker"
import { recordPlatformOutcome } from "@mds/shared/application/platform/PlatformHealthCommands"
import { pauseOpenedBy } from "@mds/shared/domain/platform/PlatformHealthDecider"
import { platformOutcomeOf } from "@mds/shared/domain/platform/PlatformOutcomeOf"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { Clock, Context, Effect, Layer } from "effect"

export class PlatformOutcomes extends Context.Service<
  PlatformOutcomes,
  {
    /** `failure` null for a success. Never fails: health bookkeeping must not fail the work it describes. */
    record(platform: string, failure: { readonly code: string; readonly message: string } | null): Effect.Effect<void>
  }
>()("mds/extractor/PlatformOutcomes") {
  static readonly layer = Layer.effect(
    PlatformOutcomes,
    Effect.gen(function* () {
      const store = yield* EventStore
      const policy = yield* PlatformBreakerConfig
      const record = (platform: string, failure: { readonly code: string; readonly message: string } | null) => {
        const outcome = platformOutcomeOf(failure)
        if (outcome === null) return Effect.void
        return Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) => recordPlatformOutcome({ _tag: "RecordOutcome", platform, outcome, now, policy })),
          Effect.provideService(EventStore, store),
          Effect.tap(({ events }) => {
            const pause = pauseOpenedBy(events)
            return pause === null
              ? Effect.void
              : Effect.logWarning("platform paused").pipe(
                  Effect.annotateLogs({ platform, until: new Date(pause.until).toISOString(), reason: pause.reason })
                )
          }),
          Effect.catchCause((cause) => Effect.logWarning("platform outcome not recorded", cause)),
          Effect.asVoid
        )
      }
      return PlatformOutcomes.of({ record })
    })
  )
}

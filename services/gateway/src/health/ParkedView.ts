// How many messages each aggregator consumer parked, for GET /v1/health: read from MDS_PARKED in the background at most
// every 5 s, so a health check never waits on it.
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { Context, Effect, Layer } from "effect"

const MAX_AGE_MS = 5_000

export class ParkedView extends Context.Service<
  ParkedView,
  {
    /** Parked messages by consumer (none: {}); null before the first read finished (or while NATS cannot be read). */
    readonly counts: Effect.Effect<Readonly<Record<string, number>> | null>
  }
>()("mds/gateway/ParkedView") {
  static readonly layer = Layer.effect(
    ParkedView,
    Effect.gen(function* () {
      const parked = yield* ParkedMessages
      let cached: Readonly<Record<string, number>> | null = null
      let readAt = 0
      const refresh = parked.counts.pipe(
        Effect.tap((fresh) => Effect.sync(() => (cached = Object.fromEntries(fresh)))),
        Effect.catchCause((cause) => Effect.logDebug("parked messages not counted", cause))
      )
      const counts = Effect.suspend(() => {
        const now = Date.now()
        if (now - readAt < MAX_AGE_MS) return Effect.succeed(cached)
        readAt = now
        // The first read is awaited (a health check right after start says what is parked); later ones refresh behind.
        const current = Effect.sync(() => cached)
        return cached === null ? Effect.andThen(refresh, current) : Effect.andThen(Effect.forkDetach(refresh), current)
      })
      return ParkedView.of({ counts })
    })
  ).pipe(Layer.provide(ParkedMessages.layer))
}

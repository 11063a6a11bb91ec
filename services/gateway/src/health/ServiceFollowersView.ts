// Other processes' stream followers for GET /v1/health (the aggregator's expiry and tally followers): gathered over
// NATS in the background at most every 5 s, so a health check never waits on it.
import { gatherFollowerStates } from "@mds/shared/nats/FollowerStates"
import type { FollowerState } from "@mds/shared/nats/StreamFollower"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Context, Effect, Layer } from "effect"

const MAX_AGE_MS = 5_000

export class ServiceFollowersView extends Context.Service<
  ServiceFollowersView,
  {
    /** The last gathered states by `<service>.<follower>`; empty before the first gathering finished. */
    readonly states: Effect.Effect<Readonly<Record<string, FollowerState>>>
  }
>()("mds/gateway/ServiceFollowersView") {
  static readonly layer = Layer.effect(
    ServiceFollowersView,
    Effect.gen(function* () {
      const nats = yield* NatsClient
      let cached: Readonly<Record<string, FollowerState>> = {}
      let readAt = 0
      const refresh = gatherFollowerStates.pipe(
        Effect.provideService(NatsClient, nats),
        Effect.tap((fresh) => Effect.sync(() => (cached = fresh)))
      )
      const states = Effect.suspend(() => {
        const now = Date.now()
        if (now - readAt < MAX_AGE_MS) return Effect.succeed(cached)
        readAt = now
        return Effect.as(Effect.forkDetach(refresh), cached)
      })
      return ServiceFollowersView.of({ states })
    })
  )
}

// In-process view of every platform's health, kept current by a follower of the last event per platform;
// refuses work for a platform whose circuit breaker is open.
import { currentPlatformHealth } from "@mds/shared/application/platform/PlatformHealthCommands"
import { defaultBreakerPolicy, type PlatformHealthView, viewPlatformHealth } from "@mds/shared/domain/platform/PlatformHealthDecider"
import { PlatformHealthEvent, type PlatformHealthState } from "@mds/shared/domain/platform/PlatformHealthEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { platformHealthSubject, PLATFORMS_STREAM } from "@mds/shared/nats/Subjects"
import { followEvents } from "@mds/shared/nats/followEvents"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { PlatformPausedNow } from "../http/GatewayErrors.ts"

/** Name of the follower in /v1/health. */
export const PLATFORMS_FOLLOWER = "platforms"

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(PlatformHealthEvent))

export class PlatformHealthBoard extends Context.Service<
  PlatformHealthBoard,
  {
    view(platform: string): Effect.Effect<PlatformHealthView>
    /** Fails while the platform is paused. */
    ensureAvailable(platform: string): Effect.Effect<void, PlatformPausedNow>
  }
>()("mds/gateway/platforms/PlatformHealthBoard") {
  static readonly layer = Layer.effect(
    PlatformHealthBoard,
    Effect.gen(function* () {
      const store = yield* EventStore
      const states = new Map<string, { readonly seq: number; readonly state: PlatformHealthState }>()
      const remember = (platform: string, seq: number, state: PlatformHealthState) => {
        const known = states.get(platform)
        if (known === undefined || known.seq < seq) states.set(platform, { seq, state })
      }

      // Starts with each platform's last event, then follows.
      const follower = yield* followEvents({
        name: PLATFORMS_FOLLOWER,
        stream: PLATFORMS_STREAM.name,
        filterSubject: platformHealthSubject.all,
        from: "last-per-subject",
        decode: decodeEvent,
        onEvent: (event, { seq }) => remember(event.platform, seq, event.state)
      })

      /** From memory while the follower delivers; otherwise the platform's last event, read from the stream. */
      const current = (platform: string) =>
        follower.state() === "following"
          ? Effect.succeed(states.get(platform))
          : currentPlatformHealth(platform).pipe(
              Effect.provideService(EventStore, store),
              Effect.map(({ state, lastSeq }) => {
                if (lastSeq > 0) remember(platform, lastSeq, state)
                return states.get(platform)
              }),
              // NATS unreachable: the last state seen is the best answer left.
              Effect.orElseSucceed(() => states.get(platform))
            )

      const view = (platform: string) =>
        Effect.zipWith(Clock.currentTimeMillis, current(platform), (now, known) => {
          return known === undefined
            ? { successRate: null, sampleSize: 0, status: "ok" as const, pausedUntil: null }
            : viewPlatformHealth(known.state, now, defaultBreakerPolicy)
        })

      const ensureAvailable = (platform: string) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const health = yield* view(platform)
          if (health.pausedUntil === null) return
          return yield* new PlatformPausedNow({
            platform,
            until: health.pausedUntil,
            retryAfterSeconds: Math.max(1, Math.ceil((health.pausedUntil - now) / 1000))
          })
        })

      return PlatformHealthBoard.of({ view, ensureAvailable })
    })
  )
}

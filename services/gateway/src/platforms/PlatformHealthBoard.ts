// In-process view of every platform's health, kept current by an ordered consumer over the last event per platform;
// refuses work for a platform whose circuit breaker is open.
import { defaultBreakerPolicy, type PlatformHealthView, viewPlatformHealth } from "@mds/shared/domain/platform/PlatformHealthDecider"
import { PlatformHealthEvent, type PlatformHealthState } from "@mds/shared/domain/platform/PlatformHealthEvent"
import { ALL_PLATFORM_HEALTH_SUBJECT, PLATFORMS_STREAM } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"

/** A request for a platform whose breaker is open: 503 platform_paused with Retry-After. */
export class PlatformPausedNow extends Schema.TaggedError<PlatformPausedNow>()("PlatformPausedNow", {
  platform: Schema.String,
  until: Schema.Number,
  retryAfterSeconds: Schema.Int
}) {}

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(PlatformHealthEvent))

export class PlatformHealthBoard extends Context.Service<PlatformHealthBoard, {
  view(platform: string): Effect.Effect<PlatformHealthView>
  /** Fails while the platform is paused. */
  ensureAvailable(platform: string): Effect.Effect<void, PlatformPausedNow>
}>()("mds/gateway/platforms/PlatformHealthBoard") {
  static readonly layer = Layer.effect(
    PlatformHealthBoard,
    Effect.gen(function*() {
      const { js } = yield* NatsClient
      const states = new Map<string, { readonly seq: number; readonly state: PlatformHealthState }>()

      // Starts with each platform's last event, then follows; restarted after any failure.
      const follow = Effect.gen(function*() {
        const messages = yield* Effect.acquireRelease(
          Effect.tryPromise(async () => {
            const consumer = await js.consumers.get(PLATFORMS_STREAM.name, {
              filter_subjects: ALL_PLATFORM_HEALTH_SUBJECT,
              deliver_policy: DeliverPolicy.LastPerSubject
            })
            return consumer.consume()
          }),
          (iterator) => Effect.promise(() => iterator.close().then(() => undefined, () => undefined))
        )
        yield* Effect.tryPromise(async () => {
          for await (const message of messages) {
            const event = decodeEvent(message.string())
            if (Option.isNone(event)) continue
            const known = states.get(event.value.platform)
            if (known === undefined || known.seq < message.seq) states.set(event.value.platform, { seq: message.seq, state: event.value.state })
          }
        })
      }).pipe(
        Effect.scoped,
        Effect.catchCause((cause) => Effect.logWarning("platform health consumer stopped; restarting", cause)),
        Effect.andThen(Effect.sleep("1 second")),
        Effect.forever
      )
      yield* Effect.forkScoped(follow)

      const view = (platform: string) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const known = states.get(platform)
          return known === undefined
            ? { successRate: null, sampleSize: 0, status: "ok" as const, pausedUntil: null }
            : viewPlatformHealth(known.state, now, defaultBreakerPolicy)
        })

      const ensureAvailable = (platform: string) =>
        Effect.gen(function*() {
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

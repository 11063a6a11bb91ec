// Follows a stream (or a KV bucket's stream) in memory with an ordered consumer, and notices when it stops delivering.
import { type Consumer, type ConsumerMessages, DeliverPolicy } from "@nats-io/jetstream"
import { Duration, Effect, Option, type Scope } from "effect"
import { NatsClient } from "./NatsClient.ts"

export interface FollowedMessage {
  readonly subject: string
  readonly seq: number
  readonly data: string
  /** The KV operation header (`DEL`, `PURGE`) of a KV bucket's message; undefined for a put and for plain streams. */
  readonly kvOperation: string | undefined
}

export type FollowerState =
  /** Delivering: the in-memory view is as current as the stream (minus delivery latency). */
  | "following"
  /** Starting, or its consumer stopped delivering and is being re-created: readers must not trust memory. */
  | "recovering"

export interface FollowerSpec {
  /** For logs and /v1/health. */
  readonly name: string
  readonly stream: string
  readonly filterSubject: string
  /**
   * Where the first consumer starts: every message, each subject's last one, or only messages after the stream's
   * current end. Every later consumer resumes right after the last message delivered, so nothing is missed or
   * delivered twice across a re-creation (a message may still arrive twice across a library-internal reset).
   */
  readonly from: "all" | "last-per-subject" | "new"
  readonly onMessage: (message: FollowedMessage) => void
  /** How often the consumer is asked for its state on the server (one request; default 1 s). */
  readonly probeMs?: number
  /** Without a successful probe, or with messages pending but none delivered, for this long: re-create (default 3 s). */
  readonly staleMs?: number
}

export interface Follower {
  readonly name: string
  state(): FollowerState
  /** Milliseconds since the last good probe or message, for /v1/health and logs. */
  silentForMs(): number
}

class ConsumerStale extends Error {}

/** Messages still pending at a probe that count as caught up while delivery moves (a busy stream is rarely at 0). */
const CAUGHT_UP_SLACK = 256

/**
 * Why this exists: an ordered consumer lives on one server (one replica, in memory). When that server dies, nats.js 3.4
 * keeps re-issuing pulls to it and never ends the iterator, so a view fed by it silently stops. Here a probe asks the
 * server for the consumer's state every `probeMs`; when it fails, or shows pending messages that never arrive, for
 * `staleMs`, the follower reports "recovering", drops the consumer and creates a new one (on a live server) from the
 * last sequence it delivered.
 */
export const startFollower = (spec: FollowerSpec): Effect.Effect<Follower, never, NatsClient | Scope.Scope> =>
  Effect.gen(function* () {
    const { js, jsm } = yield* NatsClient
    const probeMs = spec.probeMs ?? 1_000
    const staleMs = spec.staleMs ?? 3_000
    let state: FollowerState = "recovering"
    let lastSeq = 0
    let lastAlive = Date.now()
    let started = false

    const setState = (next: FollowerState, reason?: string) =>
      Effect.suspend(() => {
        if (state === next) return Effect.void
        state = next
        return next === "following"
          ? Effect.logInfo("stream follower delivering", { follower: spec.name, stream: spec.stream })
          : Effect.logWarning("stream follower not delivering; re-creating its consumer", {
              follower: spec.name,
              stream: spec.stream,
              reason
            })
      })

    const create = async (): Promise<Consumer> => {
      if (!started && spec.from === "new") {
        lastSeq = (await jsm.streams.info(spec.stream)).state.last_seq
      }
      const resume = started || spec.from === "new"
      const consumer = await js.consumers.get(spec.stream, {
        filter_subjects: spec.filterSubject,
        ...(resume
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastSeq + 1 }
          : { deliver_policy: spec.from === "all" ? DeliverPolicy.All : DeliverPolicy.LastPerSubject })
      })
      started = true
      return consumer
    }

    const run = Effect.gen(function* () {
      const consumer = yield* Effect.tryPromise(create)
      const messages = yield* Effect.acquireRelease(
        Effect.tryPromise((): Promise<ConsumerMessages> => consumer.consume()),
        (iterator) =>
          Effect.promise(() =>
            iterator.close().then(
              () => undefined,
              () => undefined
            )
          )
      )
      lastAlive = Date.now()
      const deliver = Effect.tryPromise(async () => {
        for await (const message of messages) {
          lastSeq = message.seq
          lastAlive = Date.now()
          spec.onMessage({
            subject: message.subject,
            seq: message.seq,
            data: message.string(),
            kvOperation: message.headers?.get("KV-Operation") || undefined
          })
        }
        throw new ConsumerStale("the consumer's messages ended")
      })
      // Alive when the server answers for the consumer and what it has pending is being delivered; trusted once it
      // has caught up (a key directory replaying from the start must not answer before it saw every revocation).
      let seqAtLastProbe = lastSeq
      const probe = Effect.tryPromise(() => consumer.info(false)).pipe(
        Effect.timeout(Duration.millis(probeMs)),
        Effect.flatMap((info) =>
          Effect.suspend(() => {
            const moving = lastSeq !== seqAtLastProbe
            seqAtLastProbe = lastSeq
            const caughtUp = info.num_pending === 0 || (moving && info.num_pending < CAUGHT_UP_SLACK)
            if (caughtUp || moving) lastAlive = Date.now()
            return caughtUp ? setState("following") : Effect.void
          })
        ),
        Effect.ignore,
        Effect.andThen(
          Effect.suspend(() =>
            Date.now() - lastAlive > staleMs
              ? Effect.fail(new ConsumerStale(`no delivery and no answer for the consumer for ${Date.now() - lastAlive} ms`))
              : Effect.void
          )
        ),
        Effect.andThen(Effect.sleep(Duration.millis(probeMs))),
        Effect.forever
      )
      yield* Effect.raceFirst(deliver, probe)
    }).pipe(
      Effect.scoped,
      Effect.catchCause((cause) => setState("recovering", String(cause).slice(0, 300))),
      // A first creation can fail while the stream has no leader; a stale consumer is replaced at once.
      Effect.andThen(Effect.sleep(Duration.millis(Math.min(probeMs, 500)))),
      Effect.forever
    )
    yield* Effect.forkScoped(run)

    return {
      name: spec.name,
      state: () => state,
      silentForMs: () => Date.now() - lastAlive
    }
  })

/** A follower that hands on the events it decodes; messages that do not decode (another shape, a newer version) are skipped. */
export const followDecoded = <A>(
  spec: Omit<FollowerSpec, "onMessage"> & {
    readonly decode: (data: string) => Option.Option<A>
    readonly onEvent: (event: A, message: FollowedMessage) => void
  }
): Effect.Effect<Follower, never, NatsClient | Scope.Scope> => {
  const { decode, onEvent, ...followed } = spec
  return startFollower({
    ...followed,
    onMessage: (message) => {
      const event = decode(message.data)
      if (Option.isSome(event)) onEvent(event.value, message)
    }
  })
}

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
  /**
   * Shown caught up a moment ago: a probe sent at most `trustMs` ago found nothing pending on the server, and every
   * message the server had delivered by then has been handed to `onMessage`. So the view holds every message stored
   * before that probe: a message stored now is in memory or known to be pending within `trustMs`.
   */
  | "following"
  /** Starting, behind, or its consumer stopped answering or delivering (being re-created): readers must not trust memory. */
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
  readonly from: "all" | "last-per-subject" | "new" | { readonly afterSeq: number }
  /**
   * Hands a message on. A promise it returns is awaited before the next message (backpressure: the consumer pulls no
   * more meanwhile); while it waits the follower counts as alive, not stale.
   */
  readonly onMessage: (message: FollowedMessage) => void | PromiseLike<void>
  /** How often the consumer is asked for its state on the server (one request; default 1 s). */
  readonly probeMs?: number
  /** Without a successful probe, or with messages pending but none delivered, for this long: re-create (default 3 s). */
  readonly staleMs?: number
  /** How long a probe that showed the follower caught up is trusted (default two probe intervals). */
  readonly trustMs?: number
  /** Log when the follower stops or starts being trusted (default true; a per-request follower keeps quiet). */
  readonly logStateChanges?: boolean
}

export interface Follower {
  readonly name: string
  state(): FollowerState
  /** Milliseconds since the last good probe or message, for /v1/health and logs. */
  silentForMs(): number
}

class ConsumerStale extends Error {}

/**
 * Why this exists: an ordered consumer lives on one server (one replica, in memory). When that server dies, nats.js 3.4
 * keeps re-issuing pulls to it and never ends the iterator, so a view fed by it silently stops. Here a probe asks the
 * server for the consumer's state every `probeMs`; when it fails, or shows pending messages that never arrive, for
 * `staleMs`, the follower drops the consumer and creates a new one (on a live server) from the last sequence it
 * delivered. Trust is apart from liveness: memory is trusted only while a recent probe showed the follower caught up
 * (nothing pending on the server and everything delivered handed on), so a follower behind by even one message, or
 * whose server stopped answering, is distrusted within `trustMs` instead of after the re-creation.
 */
export const startFollower = (spec: FollowerSpec): Effect.Effect<Follower, never, NatsClient | Scope.Scope> =>
  Effect.gen(function* () {
    const { js, jsm } = yield* NatsClient
    const probeMs = spec.probeMs ?? 1_000
    const staleMs = spec.staleMs ?? 3_000
    const trustMs = spec.trustMs ?? 2 * probeMs
    const from = spec.from
    let lastSeq = typeof from === "object" ? from.afterSeq : 0
    let lastAlive = Date.now()
    let started = false
    /** Waiting on onMessage's promise: the messages pending on the server wait for us, not for a dead server. */
    let handing = false
    /** When the last probe was sent whose snapshot of the stream has been handed on entirely (-Infinity: none yet). */
    let caughtUpAt = Number.NEGATIVE_INFINITY
    /** A probe that found nothing pending, waiting for the messages delivered before it to be handed on. */
    let proof: { readonly throughSeq: number; readonly sentAt: number } | undefined
    let logged: FollowerState = "recovering"

    const state = (): FollowerState => (Date.now() - caughtUpAt <= trustMs ? "following" : "recovering")

    const logChange = (reason?: string) =>
      Effect.suspend(() => {
        const now = state()
        if (now === logged || spec.logStateChanges === false) {
          logged = now
          return Effect.void
        }
        logged = now
        return now === "following"
          ? Effect.logInfo("stream follower caught up", { follower: spec.name, stream: spec.stream })
          : Effect.logWarning("stream follower not shown caught up; readers go to the stores", {
              follower: spec.name,
              stream: spec.stream,
              reason
            })
      })

    /** Called with each handed-on sequence and each probe: settles a probe that waited for its messages. */
    const settle = () => {
      if (proof !== undefined && lastSeq >= proof.throughSeq) {
        caughtUpAt = Math.max(caughtUpAt, proof.sentAt)
        proof = undefined
      }
    }

    const create = async (): Promise<Consumer> => {
      if (!started && from === "new") {
        lastSeq = (await jsm.streams.info(spec.stream)).state.last_seq
      }
      const resume = started || from === "new" || typeof from === "object"
      const consumer = await js.consumers.get(spec.stream, {
        filter_subjects: spec.filterSubject,
        ...(resume
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastSeq + 1 }
          : { deliver_policy: from === "all" ? DeliverPolicy.All : DeliverPolicy.LastPerSubject })
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
          const handed = spec.onMessage({
            subject: message.subject,
            seq: message.seq,
            data: message.string(),
            kvOperation: message.headers?.get("KV-Operation") || undefined
          })
          if (handed !== undefined) {
            handing = true
            try {
              await handed
            } finally {
              handing = false
              lastAlive = Date.now()
            }
          }
          settle()
        }
        throw new ConsumerStale("the consumer's messages ended")
      })
      // Alive when the server answers for the consumer and what it has pending or delivered is being handed on.
      let seqAtLastProbe = lastSeq
      const probe = Effect.suspend(() => {
        const sentAt = Date.now()
        return Effect.tryPromise(() => consumer.info(false)).pipe(
          Effect.timeout(Duration.millis(probeMs)),
          Effect.tap((info) =>
            Effect.sync(() => {
              const moving = lastSeq !== seqAtLastProbe
              seqAtLastProbe = lastSeq
              const delivered = info.delivered.stream_seq
              // Nothing pending: every message stored before `sentAt` is at or below `delivered`.
              if (info.num_pending === 0) proof = { throughSeq: delivered, sentAt }
              settle()
              const behind = info.num_pending > 0 || lastSeq < delivered
              if (!behind || moving || handing) lastAlive = Date.now()
            })
          )
        )
      }).pipe(
        Effect.ignore,
        Effect.andThen(logChange()),
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
      Effect.catchCause((cause) =>
        Effect.suspend(() => {
          // A re-created consumer must show it caught up again before memory is trusted.
          caughtUpAt = Number.NEGATIVE_INFINITY
          proof = undefined
          return logChange(String(cause).slice(0, 300))
        })
      ),
      // A first creation can fail while the stream has no leader; a stale consumer is replaced at once.
      Effect.andThen(Effect.sleep(Duration.millis(Math.min(probeMs, 500)))),
      Effect.forever
    )
    yield* Effect.forkScoped(run)

    return {
      name: spec.name,
      state,
      silentForMs: () => Date.now() - lastAlive
    }
  })

/** A follower that hands on the events it decodes; messages that do not decode (another shape, a newer version) are skipped. */
export const followDecoded = <A>(
  spec: Omit<FollowerSpec, "onMessage"> & {
    readonly decode: (data: string) => Option.Option<A>
    readonly onEvent: (event: A, message: FollowedMessage) => void | PromiseLike<void>
  }
): Effect.Effect<Follower, never, NatsClient | Scope.Scope> => {
  const { decode, onEvent, ...followed } = spec
  return startFollower({
    ...followed,
    onMessage: (message) => {
      const event = decode(message.data)
      return Option.isSome(event) ? onEvent(event.value, message) : undefined
    }
  })
}

// A durable JetStream pull consumer whose messages are handled on subject lanes and acked only after their work.
import { AckPolicy, JetStreamApiCodes, DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect, Stream } from "effect"
import { nullWhenNotFound, untilSettled } from "@mds/shared/nats/ClusterSettling"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { makeSubjectLanes } from "./SubjectLanes.ts"

/** What to tell JetStream about one message once its handling ended. */
export type Verdict =
  | { readonly _tag: "Ack" }
  | { readonly _tag: "Nak"; readonly delayMs: number; readonly reason: string }
  | { readonly _tag: "Term"; readonly reason: string }

export interface DurableConsumerOptions {
  readonly stream: string
  readonly durable: string
  readonly filterSubject: string
  readonly lanes: number
  readonly ackWaitMs: number
  /** Where a newly created consumer starts; All unless given. */
  readonly deliverPolicy?: DeliverPolicy
  readonly handle: (msg: JsMsg) => Effect.Effect<Verdict>
}

const settle = (msg: JsMsg, verdict: Verdict) =>
  Effect.gen(function* () {
    const where = { subject: msg.subject, seq: msg.seq, deliveryCount: msg.info.deliveryCount }
    switch (verdict._tag) {
      case "Ack":
        return msg.ack()
      case "Nak":
        yield* Effect.logWarning("projection failed; message will be redelivered").pipe(
          Effect.annotateLogs({ ...where, reason: verdict.reason, retryInMs: verdict.delayMs })
        )
        return msg.nak(verdict.delayMs)
      case "Term":
        yield* Effect.logError("poison message terminated").pipe(Effect.annotateLogs({ ...where, reason: verdict.reason }))
        // No reason argument: nats-server 2.9 does not understand "+TERM <reason>" and would redeliver forever.
        return msg.term()
    }
  })

/** Creates the durable consumer, or brings an existing one in line with the options. */
export const ensureDurableConsumer = Effect.fn("ensureDurableConsumer")(function* (options: DurableConsumerOptions) {
  const { jsm } = yield* NatsClient
  const config = {
    durable_name: options.durable,
    filter_subject: options.filterSubject,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: options.deliverPolicy ?? DeliverPolicy.All,
    ack_wait: nanos(options.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: 1024
  }
  // Safe to repeat: a consumer a timed-out request created is found and updated the next time.
  yield* untilSettled(async () => {
    const existing = await jsm.consumers.info(options.stream, options.durable).catch(nullWhenNotFound(JetStreamApiCodes.ConsumerNotFound))
    if (existing === null) await jsm.consumers.add(options.stream, config)
    else {
      const { durable_name: _name, deliver_policy: _deliver, ack_policy: _ack, ...update } = config
      await jsm.consumers.update(options.stream, options.durable, update)
    }
  })
})

/**
 * How long one pull waits on the server; it bounds how long a consumer keeps waiting on a leader that died. 2 s rather
 * than 5 s: in the cluster failover test a job's read reached `completed` on the gateways 2.5–3 s after its
 * JobCompleted when the node leading most streams was killed, where 5 s pulls took about 6 s (one run 12.4 s, past the
 * 10 s bound); the cost is one pull request every 2 s per idle consumer.
 */
const PULL_EXPIRES_MS = 2_000

/**
 * Consumes until interrupted. A broken consume() (server restart, consumer deleted) is started again after a
 * pause; unacked messages come back after ack_wait, so nothing is lost in between.
 */
export const runDurableConsumer = (options: DurableConsumerOptions) =>
  Effect.gen(function* () {
    const { js } = yield* NatsClient
    yield* ensureDurableConsumer(options)
    const consumer = yield* Effect.tryPromise(() => js.consumers.get(options.stream, options.durable))
    const lanes = yield* makeSubjectLanes<JsMsg>({
      lanes: options.lanes,
      capacity: 32,
      keyOf: (msg) => msg.subject,
      handle: (msg) => Effect.flatMap(options.handle(msg), (verdict) => settle(msg, verdict))
    })
    yield* Effect.acquireUseRelease(
      // Short pulls: when the consumer's leader dies with a pull pending, the new leader never saw it, and nats.js only
      // pulls again after two missed heartbeats (half the expiry each): 2 s instead of the default 30 s.
      Effect.tryPromise(() => consumer.consume({ max_messages: 256, expires: PULL_EXPIRES_MS })),
      (messages) => Stream.fromAsyncIterable(messages, (cause) => cause).pipe(Stream.runForEach(lanes.dispatch)),
      (messages) =>
        Effect.promise(() =>
          messages.close().then(
            () => undefined,
            () => undefined
          )
        )
    )
  }).pipe(
    Effect.scoped,
    Effect.catch((cause) =>
      Effect.logWarning("consumer failed; restarting").pipe(Effect.annotateLogs({ durable: options.durable, cause: String(cause) }))
    ),
    Effect.andThen(Effect.sleep("1 second")),
    Effect.forever
  )

// A durable JetStream pull consumer whose messages are handled on subject lanes and acked only after their work; a
// message its handler keeps failing on is parked (MDS_PARKED) so that the consumer goes on with the others.
import { AckPolicy, JetStreamApiCodes, DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect, Stream } from "effect"
import { LRUCache } from "lru-cache"
import { nullWhenNotFound, untilSettled } from "@mds/shared/nats/ClusterSettling"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import type { DeliveredMessage, Verdict } from "./DeliveredMessage.ts"
import { Parking } from "./Parking.ts"
import { makeSubjectLanes } from "./SubjectLanes.ts"

export type { DeliveredMessage, Verdict } from "./DeliveredMessage.ts"

export interface DurableConsumerOptions {
  readonly stream: string
  readonly durable: string
  readonly filterSubject: string
  readonly lanes: number
  readonly ackWaitMs: number
  /** Where a newly created consumer starts; All unless given. */
  readonly deliverPolicy?: DeliverPolicy
  readonly handle: (msg: DeliveredMessage) => Effect.Effect<Verdict>
}

/** Messages whose failures are being counted, per consumer: those pending here (at most max_ack_pending), and a margin. */
const COUNTED_MESSAGES = 4_096

/**
 * Tells JetStream the verdict. A counted failure is remembered by the message's stream sequence in this process (a
 * restart, or a redelivery to another aggregator, counts afresh: a poison message is parked after at most that many
 * more tries); at `afterFailures` the message is parked and then acknowledged, so it holds none of the consumer's
 * pending slots. A park that fails (NATS down) leaves the message to come again.
 */
const makeSettle = (options: DurableConsumerOptions, parking: Parking["Service"]) => {
  const failures = new LRUCache<number, number>({ max: COUNTED_MESSAGES })
  return (msg: JsMsg, verdict: Verdict) =>
    Effect.gen(function* () {
      const where = { durable: options.durable, subject: msg.subject, seq: msg.seq, deliveryCount: msg.info.deliveryCount }
      switch (verdict._tag) {
        case "Ack":
          failures.delete(msg.seq)
          return msg.ack()
        case "Nak":
          yield* Effect.logDebug("message to be looked at again later").pipe(
            Effect.annotateLogs({ ...where, reason: verdict.reason, retryInMs: verdict.delayMs })
          )
          return msg.nak(verdict.delayMs)
        case "Term":
          failures.delete(msg.seq)
          yield* Effect.logError("poison message terminated").pipe(Effect.annotateLogs({ ...where, reason: verdict.reason }))
          // No reason argument: nats-server 2.9 does not understand "+TERM <reason>" and would redeliver forever.
          return msg.term()
        case "Failed": {
          if (verdict.transient) {
            yield* Effect.logWarning("handler failed: a store did not answer; message will be redelivered").pipe(
              Effect.annotateLogs({ ...where, reason: verdict.reason, retryInMs: verdict.delayMs })
            )
            return msg.nak(verdict.delayMs)
          }
          const attempts = (failures.get(msg.seq) ?? 0) + 1
          failures.set(msg.seq, attempts)
          if (attempts < parking.afterFailures) {
            yield* Effect.logWarning("handler failed; message will be redelivered").pipe(
              Effect.annotateLogs({ ...where, attempts, reason: verdict.reason, retryInMs: verdict.delayMs })
            )
            return msg.nak(verdict.delayMs)
          }
          const parked = yield* Effect.result(
            parking.park(msg, { consumer: options.durable, stream: options.stream }, { error: verdict.reason, attempts })
          )
          if (parked._tag === "Failure") {
            yield* Effect.logError("handler failed and the message could not be parked; redelivered").pipe(
              Effect.annotateLogs({ ...where, attempts, reason: verdict.reason, parkError: parked.failure.message })
            )
            return msg.nak(verdict.delayMs)
          }
          failures.delete(msg.seq)
          yield* Effect.logError("handler failed again and again: message parked, the consumer goes on").pipe(
            Effect.annotateLogs({ ...where, attempts, parkedId: parked.success, reason: verdict.reason })
          )
          return msg.ack()
        }
      }
    })
}

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
    const parking = yield* Parking
    parking.register(options.durable, options.handle)
    const settle = makeSettle(options, parking)
    return yield* consumeUntilInterrupted(options, settle)
  })

const consumeUntilInterrupted = (options: DurableConsumerOptions, settle: ReturnType<typeof makeSettle>) =>
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

// Carries out an operator's replay of a parked message (`cli -- parked replay`): the message goes once more to the
// handler of the consumer that parked it, in whichever aggregator takes the request, and the outcome is told back.
import { headers as natsHeaders } from "@nats-io/transport-node"
import { PARKED_REPLAYS_STREAM, parkedReplaySubject } from "@mds/shared/nats/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type ParkedEntry, type ReplayOutcome as Outcome, ReplayOutcome, ReplayRequest } from "@mds/shared/parked/ParkedMessage"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { Effect, Layer, Option, Schema } from "effect"
import { type DeliveredMessage, ensureDurableConsumer, runDurableConsumer, type Verdict } from "./DurableConsumer.ts"
import { Parking } from "./Parking.ts"

export const PARKED_REPLAYS_DURABLE = "aggregator-parked-replays"

/** A replay runs a handler once: as long as the longest handler may take (a subscription check, 180 s), and more. */
const REPLAY_ACK_WAIT_MS = 5 * 60_000
/** How soon a request is looked at again when no handler here knows the consumer, or a store did not answer. */
const RETRY_MS = 5_000

const decodeRequest = Schema.decodeUnknownOption(Schema.fromJsonString(ReplayRequest))
const encodeOutcome = Schema.encodeSync(Schema.fromJsonString(ReplayOutcome))

/** The parked message as its handler reads it; its delivery count is the replay request's (a webhook's retry schedule). */
const deliveredAgain = (entry: ParkedEntry, deliveryCount: number): DeliveredMessage => {
  const headers = natsHeaders()
  for (const [name, values] of Object.entries(entry.message.headers)) for (const value of values) headers.append(name, value)
  return {
    subject: entry.message.subject,
    seq: entry.message.seq,
    headers,
    info: { deliveryCount },
    string: () => entry.message.data
  }
}

export const ParkedReplays = Layer.effectDiscard(
  Effect.gen(function* () {
    const parked = yield* ParkedMessages
    const parking = yield* Parking
    const { connection } = yield* NatsClient

    const tell = (replyTo: string | undefined, outcome: Outcome) =>
      Effect.sync(() => {
        if (replyTo !== undefined) connection.publish(replyTo, encodeOutcome(outcome))
      })

    /**
     * One attempt of the handler per request delivery. Taken: the parked message is dropped, then the request is
     * acknowledged (a crash in between runs the handler once more on redelivery: handlers are idempotent, and the
     * second finds the message gone). Failed again (counted): parked anew with the new error, then the old one is
     * dropped. A store that did not answer, or a handler that asks to look again later, has the request come again.
     */
    const replay = Effect.fn("ParkedReplays.replay")(function* (msg: DeliveredMessage) {
      const request = decodeRequest(msg.string())
      if (Option.isNone(request)) return { _tag: "Term", reason: "unreadable replay request" } satisfies Verdict
      const { id, replyTo } = request.value
      const found = yield* parked.get(id)
      if (Option.isNone(found)) {
        yield* tell(replyTo, { id, outcome: "gone" })
        return { _tag: "Ack" } satisfies Verdict
      }
      const entry = found.value
      const handle = parking.handlerOf(entry.message.consumer)
      if (handle === undefined) {
        yield* Effect.logWarning("replay of a parked message for a consumer this aggregator does not run; tried again later", {
          consumer: entry.message.consumer,
          id
        })
        return { _tag: "Nak", delayMs: RETRY_MS, reason: "no handler here" } satisfies Verdict
      }
      const verdict = yield* handle(deliveredAgain(entry, msg.info.deliveryCount))
      switch (verdict._tag) {
        case "Ack":
        case "Term":
          yield* parked.drop(id)
          yield* Effect.logInfo("parked message replayed", { consumer: entry.message.consumer, id, outcome: verdict._tag })
          yield* tell(replyTo, { id, outcome: verdict._tag === "Ack" ? "replayed" : "terminated" })
          return { _tag: "Ack" } satisfies Verdict
        case "Nak":
          yield* tell(replyTo, { id, outcome: "later", error: verdict.reason })
          return verdict
        case "Failed": {
          if (verdict.transient) return { _tag: "Nak", delayMs: verdict.delayMs, reason: verdict.reason } satisfies Verdict
          const again = yield* parking.park(
            deliveredAgain(entry, msg.info.deliveryCount),
            { consumer: entry.message.consumer, stream: entry.message.stream },
            { error: verdict.reason, attempts: entry.message.attempts + 1, replayOf: id }
          )
          yield* parked.drop(id)
          yield* Effect.logWarning("replay of a parked message failed again: parked anew", {
            consumer: entry.message.consumer,
            id,
            parkedAgainAs: again
          })
          yield* tell(replyTo, { id, outcome: "failed", error: verdict.reason, parkedAgainAs: again })
          return { _tag: "Ack" } satisfies Verdict
        }
      }
    })

    const consumer = {
      stream: PARKED_REPLAYS_STREAM.name,
      durable: PARKED_REPLAYS_DURABLE,
      filterSubject: parkedReplaySubject.all,
      lanes: 2,
      ackWaitMs: REPLAY_ACK_WAIT_MS,
      // The replay's own reads and writes only fail when NATS does not answer: the request simply comes again.
      handle: (msg: DeliveredMessage) =>
        replay(msg).pipe(
          Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: RETRY_MS, reason: String(cause).slice(0, 300) }))
        )
    }
    yield* ensureDurableConsumer(consumer)
    yield* Effect.forkScoped(runDurableConsumer(consumer))
  })
)

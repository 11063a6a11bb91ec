// How the aggregator's consumers set a message aside: after how many counted failures, where (MDS_PARKED), and the
// handler of each consumer, which a replay of one of its parked messages runs again.
import type { MsgHdrs } from "@nats-io/transport-node"
import type { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { Clock, Config, Context, Effect, Layer } from "effect"
import type { DeliveredMessage, MessageHandler } from "./DeliveredMessage.ts"

/** Where a parked message came from. */
export interface ParkedFrom {
  readonly consumer: string
  readonly stream: string
}

const headersOf = (headers: MsgHdrs | undefined): Record<string, Array<string>> => {
  const out: Record<string, Array<string>> = {}
  for (const [name, values] of headers ?? []) out[name] = [...values]
  return out
}

export class Parking extends Context.Service<
  Parking,
  {
    /** Counted failures of one handler on one message before it is parked (CONSUMER_PARK_AFTER_FAILURES). */
    readonly afterFailures: number
    park(
      msg: DeliveredMessage,
      from: ParkedFrom,
      failure: { readonly error: string; readonly attempts: number; readonly replayOf?: number }
    ): Effect.Effect<number, EventStoreError>
    /** Makes the consumer's handler known to replays run in this process. */
    register(consumer: string, handle: MessageHandler): void
    handlerOf(consumer: string): MessageHandler | undefined
  }
>()("mds/aggregator/consumers/Parking") {
  static readonly config = Config.Int("CONSUMER_PARK_AFTER_FAILURES").pipe(Config.withDefault(5))

  static readonly layer = Layer.effect(
    Parking,
    Effect.gen(function* () {
      const parked = yield* ParkedMessages
      const afterFailures = Math.max(1, yield* Parking.config)
      const handlers = new Map<string, MessageHandler>()
      return Parking.of({
        afterFailures,
        park: (msg, from, failure) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            parked.park({
              v: 1,
              consumer: from.consumer,
              stream: from.stream,
              subject: msg.subject,
              seq: msg.seq,
              data: msg.string(),
              headers: headersOf(msg.headers),
              error: failure.error.slice(0, 1000),
              attempts: failure.attempts,
              parkedAt: now,
              ...(failure.replayOf === undefined ? {} : { replayOf: failure.replayOf })
            })
          ),
        register: (consumer, handle) => void handlers.set(consumer, handle),
        handlerOf: (consumer) => handlers.get(consumer)
      })
    })
  ).pipe(Layer.provideMerge(ParkedMessages.layer))
}

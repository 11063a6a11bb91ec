// The aggregator's projection runner: one durable consumer per projection of the list, each message acked after its write.
import { Effect, Layer } from "effect"
import {
  type DeliveredMessage,
  type DurableConsumerOptions,
  ensureDurableConsumer,
  runDurableConsumer,
  type Verdict
} from "../consumers/DurableConsumer.ts"
import { failedVerdict } from "../consumers/HandlerFailure.ts"
import { type Projection, previousSubjectSeq } from "./Projection.ts"

export interface AggregatorOptions {
  /** Subjects projected at once per projection; events of one subject always stay in order on one lane. */
  readonly lanes: number
  readonly ackWaitMs: number
  /** Delay before a message whose write failed is delivered again. */
  readonly retryDelayMs: number
}

export const defaultAggregatorOptions: AggregatorOptions = {
  lanes: 8,
  ackWaitMs: 30_000,
  retryDelayMs: 2_000
}

const ack: Verdict = { _tag: "Ack" }

/**
 * Undecodable -> Term (never blocks the stream); projection failure -> Failed with delay (retried; parked after
 * CONSUMER_PARK_AFTER_FAILURES counted failures, never for a store that did not answer); else Ack after the write.
 */
export const verdictOf = <A, R>(
  msg: DeliveredMessage,
  definition: Projection<A, R>,
  retryDelayMs: number
): Effect.Effect<Verdict, never, R> =>
  Effect.gen(function* () {
    const data = msg.string()
    const decoded = yield* Effect.result(definition.decode(data))
    if (decoded._tag === "Failure") return { _tag: "Term", reason: `undecodable: ${String(decoded.failure)}`.slice(0, 500) } as const
    return yield* definition
      .project(decoded.success, { subject: msg.subject, seq: msg.seq, data, previousSeq: previousSubjectSeq(msg.headers, msg.seq) })
      .pipe(
        Effect.as(ack),
        Effect.catchCause((cause) => Effect.succeed<Verdict>(failedVerdict(cause, retryDelayMs)))
      )
  })

/** What the projections of a list need to write. */
export type ServicesOf<P> = P extends Projection<any, infer R> ? R : never

/** Runs every projection of the list on its own durable consumer, for as long as the layer lives. */
export const runProjections = <P extends Projection<any, any>>(
  projections: ReadonlyArray<P>,
  options: AggregatorOptions = defaultAggregatorOptions
) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<ServicesOf<P>>()
      const consumers = projections.map(
        (definition): DurableConsumerOptions => ({
          stream: definition.stream,
          durable: definition.durable,
          filterSubject: definition.filter,
          lanes: options.lanes,
          ackWaitMs: options.ackWaitMs,
          handle: (msg) => Effect.provide(verdictOf(msg, definition as Projection<unknown, ServicesOf<P>>, options.retryDelayMs), context)
        })
      )
      for (const consumer of consumers) yield* ensureDurableConsumer(consumer)
      for (const consumer of consumers) yield* Effect.forkScoped(runDurableConsumer(consumer))
      yield* Effect.logInfo("aggregator ready: projections consuming").pipe(
        Effect.annotateLogs({ consumers: consumers.map((consumer) => consumer.durable).join(",") })
      )
    })
  )

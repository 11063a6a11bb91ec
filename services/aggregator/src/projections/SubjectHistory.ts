// Reads one subject's raw messages in a sequence range straight from JetStream, leaving decoding to the caller.
import { Context, Effect, Layer, Schema } from "effect"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { isUnavailable } from "@mds/shared/runtime/Unavailable"

export interface RawEvent {
  readonly seq: number
  readonly data: string
}

export class SubjectHistoryError extends Schema.TaggedError<SubjectHistoryError>()("SubjectHistoryError", {
  subject: Schema.String,
  message: Schema.String,
  /** NATS did not answer: retried, never held against the message that met it. */
  unavailable: Schema.optionalKey(Schema.Boolean)
}) {}

/**
 * Unlike EventStore.readSubject this does not decode: a projection must be able to step over an undecodable
 * (poison) message in the middle of a subject instead of failing on it forever.
 */
export class SubjectHistory extends Context.Service<
  SubjectHistory,
  {
    /** Messages of `subject` in `stream` with afterSeq < seq <= uptoSeq, in order. */
    range(stream: string, subject: string, afterSeq: number, uptoSeq: number): Effect.Effect<ReadonlyArray<RawEvent>, SubjectHistoryError>
  }
>()("mds/aggregator/SubjectHistory") {
  static readonly layer = Layer.effect(
    SubjectHistory,
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      return SubjectHistory.of({
        range: (stream, subject, afterSeq, uptoSeq) =>
          Effect.tryPromise({
            try: async () => {
              const found: Array<RawEvent> = []
              let next = afterSeq + 1
              while (next <= uptoSeq) {
                const msg = await jsm.direct.getMessage(stream, { seq: next, next_by_subj: subject })
                if (msg === null || msg.seq > uptoSeq) break
                found.push({ seq: msg.seq, data: msg.string() })
                next = msg.seq + 1
              }
              return found
            },
            catch: (cause) =>
              new SubjectHistoryError({
                subject,
                message: cause instanceof Error ? cause.message : String(cause),
                unavailable: isUnavailable(cause)
              })
          })
      })
    })
  )
}

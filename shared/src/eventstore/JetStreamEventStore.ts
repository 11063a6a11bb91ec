// EventStore adapter on JetStream: publish with Nats-Msg-Id and expected last subject sequence (several events of one
// decision as one atomic batch); direct gets to read.
import { JetStreamApiError, type StoredMsg } from "@nats-io/jetstream"
import { Effect, Layer, Option, Schema } from "effect"
import { NatsClient } from "../nats/NatsClient.ts"
import { currentTraceHeaders } from "../nats/TraceContext.ts"
import { publishAtomicBatch } from "./AtomicBatch.ts"
import { AppendConflict, type EventCodec, EventStore, EventStoreError, type StoredEvent } from "./EventStore.ts"
import { streamLeaderReads } from "./StreamLeaderReads.ts"
import { streamOf } from "../nats/Subjects.ts"
import { isUnavailable } from "../runtime/Unavailable.ts"

/** JetStream API error code for "wrong last sequence". */
const WRONG_LAST_SEQUENCE = 10071
/** JetStream API error code for "atomic publish batch contains duplicate message id" (a batch stored before). */
const BATCH_DUPLICATE_MSG_ID = 10201
/** How long a batch message waits for the server's answer when the client sets no JetStream timeout. */
const DEFAULT_BATCH_TIMEOUT_MS = 5_000

const textEncoder = new TextEncoder()

interface JsonCodec<A> {
  readonly encode: (event: A) => Effect.Effect<string, Schema.SchemaError>
  readonly decode: (text: string) => Effect.Effect<A, Schema.SchemaError>
}

/**
 * JSON codecs by event codec, made once: building `Schema.fromJsonString(codec)` and its parser on every append and
 * read cost more than the encoding itself (schema AST copies, compiler lookups, and garbage for the GC).
 */
const jsonCodecs = new WeakMap<EventCodec<any>, JsonCodec<any>>()

const jsonCodecOf = <A>(codec: EventCodec<A>): JsonCodec<A> => {
  let json = jsonCodecs.get(codec)
  if (json === undefined) {
    const asJson = Schema.fromJsonString(codec)
    json = { encode: Schema.encodeEffect(asJson), decode: Schema.decodeUnknownEffect(asJson) }
    jsonCodecs.set(codec, json)
  }
  return json
}

const storeError = (operation: string) => (cause: unknown) =>
  new EventStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause), unavailable: isUnavailable(cause) })

export const JetStreamEventStore = Layer.effect(
  EventStore,
  Effect.gen(function* () {
    const { connection, js, jsm } = yield* NatsClient
    const leaderReads = yield* streamLeaderReads(connection, jsm)

    const decodeStored = <A>(codec: EventCodec<A>, subject: string, msg: StoredMsg) =>
      jsonCodecOf(codec)
        .decode(msg.string())
        .pipe(
          Effect.map((event): StoredEvent<A> => ({ seq: msg.seq, subject, event })),
          Effect.mapError(storeError(`decode ${subject}#${msg.seq}`))
        )

    /**
     * Commands decide on what they read, so a read must see every append acknowledged before it. A direct get may be
     * answered by any replica, and a follower can lag the leader by a moment (a key created right after its project
     * was refused with "project not found" on a 3-node cluster); with replicas the read goes to the stream's leader.
     * Whether a stream has replicas is the stream's own answer, not this process's NATS_REPLICAS.
     */
    const getMessage = (stream: string, query: { last_by_subj: string } | { seq: number; next_by_subj: string }) =>
      Effect.tryPromise({
        try: async () => ((await leaderReads(stream)) ? jsm.streams.getMessage(stream, query) : jsm.direct.getMessage(stream, query)),
        catch: storeError(`get ${stream}`)
      })

    /**
     * The message this append already stored, if any: nats-server 2.10+ checks the expected last sequence before the
     * duplicate window (2.9 did the opposite), so a retried append whose first try was stored gets "wrong last
     * sequence" instead of a duplicate ack. Only the messages after the expected sequence can be it.
     */
    const storedEarlier = (subject: string, msgId: string, afterSeq: number) =>
      Effect.gen(function* () {
        const stream = streamOf(subject).name
        let next = afterSeq + 1
        while (true) {
          const msg = yield* getMessage(stream, { seq: next, next_by_subj: subject })
          if (msg === null) return Option.none<number>()
          if (msg.header.get("Nats-Msg-Id") === msgId) return Option.some(msg.seq)
          next = msg.seq + 1
        }
      })

    return EventStore.of({
      append: (codec, subject, event, options) =>
        Effect.gen(function* () {
          const payload = yield* jsonCodecOf(codec)
            .encode(event)
            .pipe(Effect.mapError(storeError(`encode ${subject}`)))
          // The current span travels with the event, so a consumer (the download worker) continues the trace.
          const headers = yield* currentTraceHeaders
          const expected = options.expectedLastSeq
          const ack = yield* Effect.tryPromise({
            try: () =>
              js.publish(subject, textEncoder.encode(payload), {
                msgID: options.msgId,
                ...(headers === undefined ? {} : { headers }),
                ...(expected === undefined ? {} : { expect: { lastSubjectSequence: expected } })
              }),
            catch: (cause) =>
              cause instanceof JetStreamApiError && cause.code === WRONG_LAST_SEQUENCE
                ? new AppendConflict({ subject, expectedLastSeq: expected ?? -1 })
                : storeError(`append ${subject}`)(cause)
          }).pipe(
            Effect.catchTag("AppendConflict", (conflict) =>
              expected === undefined
                ? Effect.fail(conflict)
                : Effect.flatMap(storedEarlier(subject, options.msgId, expected), (seq) =>
                    Option.isSome(seq) ? Effect.succeed({ seq: seq.value, duplicate: true }) : Effect.fail(conflict)
                  )
            )
          )
          return { seq: ack.seq, duplicate: ack.duplicate }
        }),

      appendBatch: (codec, subject, events, options) =>
        Effect.gen(function* () {
          const encode = jsonCodecOf(codec).encode
          const messages = yield* Effect.forEach(events, ({ event, msgId }) =>
            encode(event).pipe(
              Effect.map((payload) => ({ subject, payload: textEncoder.encode(payload), msgId })),
              Effect.mapError(storeError(`encode ${subject}`))
            )
          )
          const outcome = yield* publishAtomicBatch(connection, messages, {
            expectedLastSubjectSeq: options.expectedLastSeq,
            extraHeaders: yield* currentTraceHeaders,
            timeoutMs: js.getOptions().timeout ?? DEFAULT_BATCH_TIMEOUT_MS
          }).pipe(Effect.mapError((failure) => storeError(`append batch ${subject}`)(failure.message)))
          if (outcome._tag === "Stored") return { seq: outcome.seq, duplicate: false }
          if (outcome.errCode !== WRONG_LAST_SEQUENCE && outcome.errCode !== BATCH_DUPLICATE_MSG_ID)
            return yield* storeError(`append batch ${subject}`)(`${outcome.description} (${outcome.errCode})`)
          // All or none: the batch was stored before exactly when its last message is on the subject after the expectation.
          const stored = yield* storedEarlier(subject, messages.at(-1)?.msgId ?? "", options.expectedLastSeq)
          if (Option.isSome(stored)) return { seq: stored.value, duplicate: true }
          return yield* new AppendConflict({ subject, expectedLastSeq: options.expectedLastSeq })
        }),

      readSubject: (codec, subject, afterSeq = 0, uptoSeq = Number.POSITIVE_INFINITY) =>
        Effect.gen(function* () {
          const stream = streamOf(subject).name
          const events: Array<StoredEvent<any>> = []
          let next = afterSeq + 1
          while (next <= uptoSeq) {
            const msg = yield* getMessage(stream, { seq: next, next_by_subj: subject })
            if (msg === null || msg.seq > uptoSeq) return events
            events.push(yield* decodeStored(codec, subject, msg))
            next = msg.seq + 1
          }
          return events
        }),

      readLast: (codec, subject) =>
        getMessage(streamOf(subject).name, { last_by_subj: subject }).pipe(
          Effect.flatMap((msg) =>
            msg === null ? Effect.succeed(Option.none()) : Effect.map(decodeStored(codec, subject, msg), Option.some)
          )
        )
    })
  })
)

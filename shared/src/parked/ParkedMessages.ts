// The parked messages in MDS_PARKED: set aside by a consumer, listed, counted, dropped, and asked to be replayed (the
// aggregator's replay consumer carries a replay out). The aggregator, its CLI and the gateway's health read them here.
import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { EventStoreError } from "../eventstore/EventStore.ts"
import { PARKED_STREAM, parkedReplaySubject, parkedSubject } from "../nats/Subjects.ts"
import { NatsClient } from "../nats/NatsClient.ts"
import { isUnavailable } from "../runtime/Unavailable.ts"
import { type ParkedEntry, ParkedMessage, ReplayRequest } from "./ParkedMessage.ts"

const ParkedJson = Schema.fromJsonString(ParkedMessage)
const decodeParked = Schema.decodeUnknownOption(ParkedJson)
const encodeParked = Schema.encodeSync(ParkedJson)
const encodeRequest = Schema.encodeSync(Schema.fromJsonString(ReplayRequest))

/** JetStream refuses a message past the subject's limit when the stream discards new ones per subject. */
const PER_SUBJECT_LIMIT_REACHED = 10077

const isNoMessage = (error: unknown) => error instanceof JetStreamApiError && error.code === JetStreamApiCodes.NoMessageFound
/** Deleting what is not there answers "message delete failed" (10057) with "no message found". */
const MESSAGE_DELETE_FAILED = 10057
const isNothingToDelete = (error: unknown) =>
  isNoMessage(error) ||
  (error instanceof JetStreamApiError && error.code === MESSAGE_DELETE_FAILED && /no message found/iu.test(error.message))

/** A direct get of what is not (or no longer) there answers "no message found". */
const orNull = <A>(read: Promise<A | null>): Promise<A | null> =>
  read.catch((error: unknown) => {
    if (isNoMessage(error)) return null
    throw error
  })

const storeError = (operation: string) => (cause: unknown) =>
  new EventStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause), unavailable: isUnavailable(cause) })

/** How many messages each consumer has parked (consumers without any are absent): one stream info request. */
export const parkedCounts = async (jsm: JetStreamManager): Promise<ReadonlyMap<string, number>> => {
  const info = await jsm.streams.info(PARKED_STREAM.name, { subjects_filter: parkedSubject.all })
  const counts = new Map<string, number>()
  for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
    const parsed = parkedSubject.parse(subject)
    if (Option.isSome(parsed) && count > 0) counts.set(parsed.value.consumer, count)
  }
  return counts
}

export class ParkedMessages extends Context.Service<
  ParkedMessages,
  {
    /** Sets the message aside; its id. Parking the same failure twice (a retry after a timeout) keeps one. */
    park(message: ParkedMessage): Effect.Effect<number, EventStoreError>
    /** Every parked message (of one consumer), oldest first. */
    list(consumer?: string): Effect.Effect<ReadonlyArray<ParkedEntry>, EventStoreError>
    get(id: number): Effect.Effect<Option.Option<ParkedEntry>, EventStoreError>
    /** Removes it; false when nothing was parked under that id (any more). */
    drop(id: number): Effect.Effect<boolean, EventStoreError>
    /** How many messages each consumer has parked (consumers without any are absent). */
    counts: Effect.Effect<ReadonlyMap<string, number>, EventStoreError>
    /** Asks the aggregators to hand it to its consumer once more; `already` when a request for it still waits. */
    requestReplay(entry: ParkedEntry, replyTo?: string): Effect.Effect<"requested" | "already", EventStoreError>
  }
>()("mds/parked/ParkedMessages") {
  static readonly layer = Layer.effect(
    ParkedMessages,
    Effect.gen(function* () {
      const { js, jsm } = yield* NatsClient

      const park = (message: ParkedMessage) =>
        Effect.tryPromise({
          try: () =>
            js.publish(parkedSubject(message.consumer), encodeParked(message), {
              msgID: `park:${message.consumer}:${message.stream}:${message.seq}:${message.replayOf ?? 0}`
            }),
          catch: storeError(`park ${message.stream} #${message.seq}`)
        }).pipe(Effect.map((ack) => ack.seq))

      const entryOf = (stored: { readonly seq: number; readonly subject: string; string(): string } | null): ParkedEntry | null => {
        if (stored === null || Option.isNone(parkedSubject.parse(stored.subject))) return null
        const message = decodeParked(stored.string())
        return Option.isSome(message) ? { id: stored.seq, message: message.value } : null
      }

      const list = (consumer?: string) =>
        Effect.tryPromise({
          try: async () => {
            const filter = consumer === undefined ? parkedSubject.all : parkedSubject(consumer)
            const found: Array<ParkedEntry> = []
            for (let next = 1; ; ) {
              const stored = await orNull(jsm.direct.getMessage(PARKED_STREAM.name, { seq: next, next_by_subj: filter }))
              if (stored === null) return found
              const entry = entryOf(stored)
              if (entry !== null) found.push(entry)
              next = stored.seq + 1
            }
          },
          catch: storeError("list parked messages")
        })

      const get = (id: number) =>
        Effect.tryPromise({
          try: () => orNull(jsm.direct.getMessage(PARKED_STREAM.name, { seq: id })),
          catch: storeError(`get parked message ${id}`)
        }).pipe(Effect.map((stored) => Option.fromNullishOr(entryOf(stored))))

      const drop = (id: number) =>
        Effect.tryPromise({
          try: () =>
            jsm.streams.deleteMessage(PARKED_STREAM.name, id, false).catch((error: unknown) => {
              if (isNothingToDelete(error)) return false
              throw error
            }),
          catch: storeError(`drop parked message ${id}`)
        })

      const counts = Effect.tryPromise({ try: () => parkedCounts(jsm), catch: storeError("count parked messages") })

      const requestReplay = (entry: ParkedEntry, replyTo?: string) =>
        Effect.tryPromise({
          try: () =>
            js
              .publish(
                parkedReplaySubject(entry.message.consumer, String(entry.id)),
                encodeRequest({ id: entry.id, ...(replyTo === undefined ? {} : { replyTo }) })
              )
              .then(
                () => "requested" as const,
                (error: unknown) => {
                  if (error instanceof JetStreamApiError && error.code === PER_SUBJECT_LIMIT_REACHED) return "already" as const
                  throw error
                }
              ),
          catch: storeError(`request the replay of parked message ${entry.id}`)
        })

      return ParkedMessages.of({ park, list, get, drop, counts, requestReplay })
    })
  )
}

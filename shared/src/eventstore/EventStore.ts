// The event store port: append to a subject (idempotent, optionally conditional) and read a subject back.
import { Context, type Effect, type Option, Schema } from "effect"

export interface StoredEvent<A> {
  readonly seq: number
  readonly subject: string
  readonly event: A
}

export interface AppendOptions {
  /** Deduplication id: appending the same msgId twice within the window stores one message. */
  readonly msgId: string
  /** Optimistic concurrency: the subject's last sequence must be this (0 = the subject is empty). */
  readonly expectedLastSeq?: number
}

/** One event of a batch and its deduplication id. */
export interface BatchedEvent<A> {
  readonly event: A
  readonly msgId: string
}

export interface AppendResult {
  readonly seq: number
  readonly duplicate: boolean
}

export class AppendConflict extends Schema.TaggedError<AppendConflict>()("AppendConflict", {
  subject: Schema.String,
  expectedLastSeq: Schema.Number
}) {}

export class EventStoreError extends Schema.TaggedError<EventStoreError>()("EventStoreError", {
  operation: Schema.String,
  message: Schema.String,
  /** NATS did not answer (down, unreachable, timed out): retried, never held against the message that met it. */
  unavailable: Schema.optionalKey(Schema.Boolean)
}) {}

export type EventCodec<A> = Schema.Codec<A, unknown>

export class EventStore extends Context.Service<
  EventStore,
  {
    append<A>(
      codec: EventCodec<A>,
      subject: string,
      event: A,
      options: AppendOptions
    ): Effect.Effect<AppendResult, AppendConflict | EventStoreError>
    /**
     * The events of one decision on one subject, stored all or none (a crash or a refusal in between leaves none of
     * them), the first expecting the subject's last sequence to be `expectedLastSeq`. The result names the last one; a
     * retry of a batch already stored reports it as a duplicate.
     */
    appendBatch<A>(
      codec: EventCodec<A>,
      subject: string,
      events: ReadonlyArray<BatchedEvent<A>>,
      options: { readonly expectedLastSeq: number }
    ): Effect.Effect<AppendResult, AppendConflict | EventStoreError>
    /** Every event of one subject, in order, optionally only those after `afterSeq` and up to `uptoSeq` (both stream sequences). */
    readSubject<A>(
      codec: EventCodec<A>,
      subject: string,
      afterSeq?: number,
      uptoSeq?: number
    ): Effect.Effect<ReadonlyArray<StoredEvent<A>>, EventStoreError>
    readLast<A>(codec: EventCodec<A>, subject: string): Effect.Effect<Option.Option<StoredEvent<A>>, EventStoreError>
  }
>()("mds/eventstore/EventStore") {}

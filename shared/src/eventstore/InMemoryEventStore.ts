// EventStore adapter in memory, with the JetStream semantics the code relies on: a sequence per stream, the expected
// last subject sequence, msgId deduplication within a window that expires, atomic batches. For the lifecycle model.
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { AppendConflict, type EventCodec, EventStore, EventStoreError, type StoredEvent } from "./EventStore.ts"
import { streamOf } from "../nats/Subjects.ts"

/** JetStream's default duplicate window (and the one every stream of StreamTopology uses). */
export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000

/** One stored message: its stream, sequence, subject, payload (the encoded event) and when it was stored. */
export interface StoredMessage {
  readonly stream: string
  readonly seq: number
  readonly subject: string
  readonly msgId: string
  readonly payload: unknown
  readonly at: number
}

export interface InMemoryEventStoreOptions {
  readonly duplicateWindowMs?: number
  /**
   * Runs before each append (single or batch), in the appending fiber: how the lifecycle model suspends a process at
   * each of its writes to interleave it with others, stops it there for good (a crash), or fails the write as NATS
   * would (an EventStoreError: nothing stored).
   */
  readonly beforeAppend?: (subject: string) => Effect.Effect<void, EventStoreError>
}

/** The store, and what a test sees of it besides the port: every message in order, and a work queue's removals. */
export interface InMemoryEventStore {
  readonly service: EventStore["Service"]
  /** Every message ever stored, in order (removed ones too). */
  readonly messages: () => ReadonlyArray<StoredMessage>
  /** Removes a message from its subject, as a work-queue stream does once a consumer acknowledged it. */
  readonly remove: (message: StoredMessage) => void
}

interface StreamState {
  lastSeq: number
  readonly bySubject: Map<string, Array<StoredMessage>>
  /** msgId -> the message it stored; entries older than the window are not duplicates any more. */
  readonly recent: Map<string, StoredMessage>
}

const storeError = (operation: string) => (cause: unknown) =>
  new EventStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

export const makeInMemoryEventStore = (options: InMemoryEventStoreOptions = {}): InMemoryEventStore => {
  const windowMs = options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS
  const streams = new Map<string, StreamState>()
  const all: Array<StoredMessage> = []
  const beforeAppend = options.beforeAppend ?? (() => Effect.void)

  const streamState = (subject: string): StreamState => {
    const name = streamOf(subject).name
    let state = streams.get(name)
    if (state === undefined) {
      state = { lastSeq: 0, bySubject: new Map(), recent: new Map() }
      streams.set(name, state)
    }
    return state
  }
  const subjectMessages = (subject: string) => streamState(subject).bySubject.get(subject) ?? []
  const lastSeqOf = (subject: string) => subjectMessages(subject).at(-1)?.seq ?? 0

  /** The message a msgId stored within the window, if any (older entries are forgotten, as JetStream does). */
  const withinWindow = (stream: StreamState, msgId: string, now: number): StoredMessage | undefined => {
    const earlier = stream.recent.get(msgId)
    if (earlier === undefined) return undefined
    if (now - earlier.at >= windowMs) {
      stream.recent.delete(msgId)
      return undefined
    }
    return earlier
  }

  /**
   * Like the JetStream adapter: with an expectation that fails, a message with the same msgId stored after the
   * expected sequence is this append's earlier try (a duplicate); otherwise a conflict.
   */
  const storedAfter = (subject: string, msgId: string, afterSeq: number) =>
    subjectMessages(subject).find((message) => message.seq > afterSeq && message.msgId === msgId)

  const store = (subject: string, msgId: string, payload: unknown, now: number): StoredMessage => {
    const stream = streamState(subject)
    stream.lastSeq += 1
    const message: StoredMessage = { stream: streamOf(subject).name, seq: stream.lastSeq, subject, msgId, payload, at: now }
    const list = stream.bySubject.get(subject)
    if (list === undefined) stream.bySubject.set(subject, [message])
    else list.push(message)
    stream.recent.set(msgId, message)
    all.push(message)
    return message
  }

  const encode = <A>(codec: EventCodec<A>, subject: string, event: A) =>
    Schema.encodeEffect(codec)(event).pipe(Effect.mapError(storeError(`encode ${subject}`)))
  const decode = <A>(codec: EventCodec<A>, message: StoredMessage) =>
    Schema.decodeUnknownEffect(codec)(message.payload).pipe(
      Effect.map((event): StoredEvent<A> => ({ seq: message.seq, subject: message.subject, event })),
      Effect.mapError(storeError(`decode ${message.subject}#${message.seq}`))
    )

  const service = EventStore.of({
    append: (codec, subject, event, appendOptions) =>
      Effect.gen(function* () {
        const payload = yield* encode(codec, subject, event)
        yield* beforeAppend(subject)
        const now = yield* Clock.currentTimeMillis
        const expected = appendOptions.expectedLastSeq
        if (expected !== undefined && lastSeqOf(subject) !== expected) {
          const earlier = storedAfter(subject, appendOptions.msgId, expected)
          if (earlier !== undefined) return { seq: earlier.seq, duplicate: true }
          return yield* new AppendConflict({ subject, expectedLastSeq: expected })
        }
        const duplicate = withinWindow(streamState(subject), appendOptions.msgId, now)
        if (duplicate !== undefined) return { seq: duplicate.seq, duplicate: true }
        return { seq: store(subject, appendOptions.msgId, payload, now).seq, duplicate: false }
      }),

    appendBatch: (codec, subject, events, batchOptions) =>
      Effect.gen(function* () {
        const payloads = yield* Effect.forEach(events, ({ event }) => encode(codec, subject, event))
        yield* beforeAppend(subject)
        const now = yield* Clock.currentTimeMillis
        const lastMsgId = events.at(-1)?.msgId ?? ""
        const stream = streamState(subject)
        const anyDuplicate = events.some(({ msgId }) => withinWindow(stream, msgId, now) !== undefined)
        if (lastSeqOf(subject) !== batchOptions.expectedLastSeq || anyDuplicate) {
          // All or none: the batch was stored before exactly when its last message is there after the expectation.
          const earlier = storedAfter(subject, lastMsgId, batchOptions.expectedLastSeq)
          if (earlier !== undefined) return { seq: earlier.seq, duplicate: true }
          if (anyDuplicate) return yield* storeError(`append batch ${subject}`)("batch contains a duplicate message id")
          return yield* new AppendConflict({ subject, expectedLastSeq: batchOptions.expectedLastSeq })
        }
        let seq = 0
        for (const [index, { msgId }] of events.entries()) seq = store(subject, msgId, payloads[index], now).seq
        return { seq, duplicate: false }
      }),

    readSubject: (codec, subject, afterSeq = 0) =>
      Effect.forEach(
        subjectMessages(subject).filter((message) => message.seq > afterSeq),
        (message) => decode(codec, message)
      ),

    readLast: (codec, subject) => {
      const last = subjectMessages(subject).at(-1)
      return last === undefined ? Effect.succeed(Option.none()) : Effect.map(decode(codec, last), Option.some)
    }
  })

  const remove = (message: StoredMessage) => {
    const list = streamState(message.subject).bySubject.get(message.subject)
    const index = list?.indexOf(message) ?? -1
    if (list !== undefined && index >= 0) list.splice(index, 1)
  }

  return { service, messages: () => all, remove }
}

/** The in-memory store as the EventStore service (each layer build starts empty). */
export const InMemoryEventStoreLayer = (options?: InMemoryEventStoreOptions) =>
  Layer.sync(EventStore, () => makeInMemoryEventStore(options).service)

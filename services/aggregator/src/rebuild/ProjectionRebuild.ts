// Rebuilds one read model from its streams into a new store beside the live one, then switches every reader and writer to it.
import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { Clock, Deferred, Duration, Effect, Fiber, Option, Ref, Schema, Stream } from "effect"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { ReadModelBackend, type ReadModelName } from "@mds/shared/readmodel/ReadModelBackend"
import { makeSubjectLanes } from "../consumers/SubjectLanes.ts"
import { takeBatch } from "./DeliveredBatches.ts"
import type { ProgressBar } from "./ProgressBar.ts"
import { defaultReplayBatchLimits, type ReplayBatchLimits, type ReplaySource, replaySourcesFor } from "./RebuildReplays.ts"

/** Subjects projected at once, as many as the live aggregator's lanes. */
const REBUILD_LANES = 8

export interface RebuildOptions {
  /**
   * How long the rebuild keeps following the streams after the switch: long enough for every live process to see
   * the new pointer (POINTER_REFRESH_MS), so an event the live aggregator wrote to the old store just before it
   * switched reaches the new store too. The old store is dropped only afterwards.
   */
  readonly graceMs: number
  readonly progress: (readModel: ReadModelName) => ProgressBar
  /** For the read models rebuilt in batches (jobs); defaultReplayBatchLimits when absent. */
  readonly batches?: ReplayBatchLimits
}

export interface RebuildResult {
  readonly readModel: ReadModelName
  readonly events: number
  readonly store: string
  readonly previous: string
}

export class RebuildError extends Schema.TaggedError<RebuildError>()("RebuildError", {
  readModel: Schema.String,
  message: Schema.String
}) {}

/** How many messages of `source` the stream holds now: the whole stream, or the counts of the filter's subjects. */
const countOf = async (jsm: NatsClient["Service"]["jsm"], source: ReplaySource): Promise<number> => {
  const info = await jsm.streams.info(source.stream)
  if (info.config.subjects.length === 1 && info.config.subjects[0] === source.filter) return info.state.messages
  // Part of a stream (e.g. the key subjects of MDS_ACCOUNTS); the client pages through the subjects.
  const filtered = await jsm.streams.info(source.stream, { subjects_filter: source.filter })
  return Object.values(filtered.state.subjects ?? {}).reduce((sum, count) => sum + count, 0)
}

interface SourceProgress {
  total: number
  dispatched: number
  /** The source's tip at some moment was dispatched (or it held nothing). */
  tipReached: boolean
}

/**
 * Replays the read model's streams with ordered consumers into `<default>_r<time>`; once caught up with every one,
 * it switches the pointer, keeps following for the grace period, and drops the store used before. Running it again
 * builds the same documents again (the projections are deterministic), so it is safe to repeat.
 */
export const rebuildReadModel = Effect.fn("rebuildReadModel")(function* (name: ReadModelName, options: RebuildOptions) {
  const backend = yield* ReadModelBackend
  const { js, jsm } = yield* NatsClient
  const fail = (message: string) => (cause: unknown) =>
    new RebuildError({ readModel: name, message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}` })
  const store = `${backend.defaults[name]}_r${yield* Clock.currentTimeMillis}`
  const closeQuietly = (consumed: { close(): Promise<unknown> }) =>
    Effect.promise(() =>
      consumed.close().then(
        () => undefined,
        () => undefined
      )
    )

  const batchLimits = options.batches ?? defaultReplayBatchLimits
  const replays = yield* Effect.gen(function* () {
    const sources = yield* replaySourcesFor(name, store, batchLimits)
    return yield* Effect.forEach(sources, (source) =>
      Effect.gen(function* () {
        const total = yield* Effect.tryPromise({ try: () => countOf(jsm, source), catch: fail(`read stream ${source.stream}`) })
        const messages = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: async () => {
              // Ordered: ephemeral, flow-controlled, no acks, recreated by the client after a gap; one filter for nats-server 2.9.
              const consumer = await js.consumers.get(source.stream, { filter_subjects: source.filter, deliver_policy: DeliverPolicy.All })
              // A batched source pulls a batch's worth at a time: with the default (100) it waits on pulls.
              return consumer.consume(source.projection._tag === "Batched" ? { max_messages: batchLimits.messages } : {})
            },
            catch: fail(`replay ${source.stream}`)
          }),
          closeQuietly
        )
        const progress: SourceProgress = { total, dispatched: 0, tipReached: total === 0 }
        return { source, messages, progress }
      })
    )
  }).pipe(
    // Nothing switched yet: the store just opened is nobody's.
    Effect.tapError(() => backend.stores.drop(store).pipe(Effect.ignore))
  )
  const bar = options.progress(name)
  const totalOf = () => replays.reduce((sum, r) => sum + r.progress.total, 0)
  const closeAll = Effect.forEach(replays, (r) => closeQuietly(r.messages), { discard: true })

  let done = 0
  const caughtUp = yield* Deferred.make<void>()
  if (replays.every((r) => r.progress.tipReached)) yield* Deferred.succeed(caughtUp, undefined)
  const switched = yield* Ref.make<Option.Option<string>>(Option.none())

  const switchOver = Effect.gen(function* () {
    yield* Deferred.await(caughtUp)
    const previous = yield* backend.stores.switchTo(name, store, backend.defaults[name])
    yield* Ref.set(switched, Option.some(previous))
    yield* Effect.sleep(Duration.millis(options.graceMs))
    // Ends the replay streams below.
    yield* closeAll
    return previous
  })
  const switching = yield* Effect.forkChild(switchOver)

  // Messages count as projected once stored: only then may "caught up" switch the pointer.
  let dispatched = 0
  const failure = yield* Ref.make<Option.Option<RebuildError>>(Option.none())
  const failWith = (error: RebuildError) => Ref.set(failure, Option.some(error)).pipe(Effect.andThen(closeAll))
  const projected = (count: number) =>
    Effect.suspend(() => {
      done += count
      bar.update(done, totalOf())
      // Caught up: every stream's tip at some moment was delivered, and everything delivered is projected.
      return replays.every((r) => r.progress.tipReached) && done === dispatched ? Deferred.succeed(caughtUp, undefined) : Effect.void
    })
  const delivered = (replay: (typeof replays)[number], msg: JsMsg) => {
    dispatched++
    const progress = replay.progress
    progress.dispatched++
    progress.total = Math.max(progress.total, progress.dispatched + msg.info.pending)
    if (msg.info.pending === 0) progress.tipReached = true
  }

  // Per message: subjects are projected on lanes as the live aggregator does, one subject's events in order, different ones at once.
  let laned = 0
  let settled = 0
  const lanes = yield* makeSubjectLanes<readonly [(msg: JsMsg) => Effect.Effect<unknown, unknown>, JsMsg]>({
    lanes: REBUILD_LANES,
    capacity: 64,
    keyOf: ([, msg]) => msg.subject,
    handle: ([handle, msg]) =>
      handle(msg).pipe(
        Effect.retry({ times: 5 }),
        Effect.matchEffect({
          onSuccess: () => projected(1),
          // The first failure stops the replay: the streams are closed and the rebuild fails below.
          onFailure: (cause) => failWith(fail(`project ${msg.subject} #${msg.seq}`)(cause))
        }),
        Effect.ensuring(Effect.sync(() => void settled++))
      )
  })
  const projectEach = (replay: (typeof replays)[number], handle: (msg: JsMsg) => Effect.Effect<unknown, unknown>) =>
    Stream.runForEach((msg: JsMsg) =>
      Effect.suspend(() => {
        delivered(replay, msg)
        laned++
        return lanes.dispatch([handle, msg])
      })
    )

  // Batched: messages are taken until the batch is full or the stream's tip is delivered, then projected together
  // before more are taken (the consumer buffers meanwhile). The handler retries its own reads and writes.
  const projectBatches = (replay: (typeof replays)[number], handle: (msgs: ReadonlyArray<JsMsg>) => Effect.Effect<void, unknown>) =>
    Effect.gen(function* () {
      const iterator = replay.messages[Symbol.asyncIterator]()
      const onDelivered = (msg: JsMsg) => delivered(replay, msg)
      // After a failure the streams are closing; nothing more is projected.
      while (Option.isNone(yield* Ref.get(failure))) {
        const batch = yield* Effect.tryPromise({
          try: () => takeBatch(iterator, batchLimits.messages, onDelivered),
          catch: fail(`replay ${replay.source.stream}`)
        })
        const taken = batch.messages
        // Messages still held when the consumer closed (the grace period ended) were delivered, so they are projected too.
        if (taken.length > 0) {
          yield* handle(taken).pipe(
            Effect.matchEffect({
              onSuccess: () => projected(taken.length),
              onFailure: (cause) => failWith(fail(`project ${taken.length} messages up to #${taken.at(-1)!.seq}`)(cause))
            })
          )
        }
        if (batch.ended) return
      }
    })

  const streamed = yield* Effect.result(
    Effect.forEach(
      replays,
      (replay) => {
        const projection = replay.source.projection
        return projection._tag === "Batched"
          ? projectBatches(replay, projection.handle)
          : projectEach(replay, projection.handle)(Stream.fromAsyncIterable(replay.messages, fail(`replay ${replay.source.stream}`)))
      },
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.tapError(() => closeAll))
  )
  // The streams end when the grace period closes them (or on a failure); the lanes finish what they hold first.
  while (settled < laned) yield* Effect.sleep(Duration.millis(10))
  const failed = Option.orElse(yield* Ref.get(failure), () => (streamed._tag === "Failure" ? Option.some(streamed.failure) : Option.none()))
  if (Option.isSome(failed)) {
    yield* Fiber.interrupt(switching)
    // Never switched: the half-built store is nobody's and goes; once switched, it is the live one and stays.
    if (Option.isNone(yield* Ref.get(switched))) yield* backend.stores.drop(store).pipe(Effect.ignore)
    return yield* Effect.fail(failed.value)
  }
  const previous = yield* Fiber.join(switching)
  bar.finish(done, done)
  if (previous !== store) yield* backend.stores.drop(previous)
  return { readModel: name, events: done, store, previous } satisfies RebuildResult
})

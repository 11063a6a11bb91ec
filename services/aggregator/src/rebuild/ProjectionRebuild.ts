// Rebuilds one read model from its stream into a new store beside the live one, then switches every reader and writer to it.
import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { Clock, Deferred, Duration, Effect, Fiber, Layer, Option, Ref, Schema, Stream } from "effect"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { JOBS_STREAM, MEDIA_STREAM } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { ReadModelBackend, type ReadModelName } from "@mds/shared/readmodel/ReadModelBackend"
import { JobProjection } from "../JobProjection.ts"
import { MediaProjection } from "../MediaProjection.ts"
import { SubjectHistory } from "../SubjectHistory.ts"
import { makeSubjectLanes } from "../SubjectLanes.ts"
import type { ProgressBar } from "./ProgressBar.ts"

/** Subjects projected at once, as many as the live aggregator's lanes. */
const REBUILD_LANES = 8

export interface RebuildOptions {
  /**
   * How long the rebuild keeps following the stream after the switch: long enough for every live process to see
   * the new pointer (POINTER_REFRESH_MS), so an event the live aggregator wrote to the old store just before it
   * switched reaches the new store too. The old store is dropped only afterwards.
   */
  readonly graceMs: number
  readonly progress: (readModel: ReadModelName) => ProgressBar
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

interface Replay {
  readonly stream: string
  readonly filter: string
  /** Projects one message exactly as the live aggregator does. */
  readonly handle: (msg: JsMsg) => Effect.Effect<unknown, unknown>
}

const decodeMediaEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent))

/** The same projections as the live aggregator, over the read model opened on the new store. */
const replayFor = (name: ReadModelName, store: string) =>
  Effect.gen(function*() {
    const backend = yield* ReadModelBackend
    switch (name) {
      case "jobs": {
        const readModel = yield* backend.openJobs(store)
        const projection = yield* Effect.provide(
          Effect.gen(function*() {
            return yield* JobProjection
          }),
          // Fresh: a process that also runs the live aggregator must not get its memoized projection (and store) back.
          Layer.fresh(JobProjection.layer).pipe(Layer.provide(Layer.mergeAll(Layer.succeed(JobReadModel, readModel), SubjectHistory.layer)))
        )
        return { stream: JOBS_STREAM.name, filter: JOBS_STREAM.subjects[0]!, handle: (msg) => projection.catchUp(msg.subject, msg.seq) } satisfies Replay
      }
      case "media": {
        const readModel = yield* backend.openMedia(store)
        const projection = yield* Effect.provide(
          Effect.gen(function*() {
            return yield* MediaProjection
          }),
          Layer.fresh(MediaProjection.layer).pipe(Layer.provide(Layer.succeed(MediaReadModel, readModel)))
        )
        return {
          stream: MEDIA_STREAM.name,
          filter: MEDIA_STREAM.subjects[0]!,
          // An undecodable message is stepped over, as the live consumer terminates it.
          handle: (msg) =>
            Effect.flatMap(Effect.option(decodeMediaEvent(msg.string())), (event) => (Option.isSome(event) ? projection.apply(event.value) : Effect.void))
        } satisfies Replay
      }
    }
  })

/**
 * Replays the whole stream with an ordered consumer into `<default>_r<time>`; once caught up with the stream, it
 * switches the pointer, keeps following for the grace period, and drops the store used before. Running it again
 * builds the same documents again (the projections are deterministic), so it is safe to repeat.
 */
export const rebuildReadModel = Effect.fn("rebuildReadModel")(function*(name: ReadModelName, options: RebuildOptions) {
  const backend = yield* ReadModelBackend
  const { js, jsm } = yield* NatsClient
  const fail = (message: string) => (cause: unknown) => new RebuildError({ readModel: name, message: `${message}: ${cause instanceof Error ? cause.message : String(cause)}` })
  const store = `${backend.defaults[name]}_r${yield* Clock.currentTimeMillis}`
  const replay = yield* replayFor(name, store)
  const bar = options.progress(name)

  const info = yield* Effect.tryPromise({ try: () => jsm.streams.info(replay.stream), catch: fail(`read stream ${replay.stream}`) })
  let done = 0
  let total = info.state.messages
  const caughtUp = yield* Deferred.make<void>()
  if (total === 0) yield* Deferred.succeed(caughtUp, undefined)
  const switched = yield* Ref.make<Option.Option<string>>(Option.none())

  const messages = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        // Ordered: ephemeral, flow-controlled, no acks, recreated by the client after a gap; one filter for nats-server 2.9.
        const consumer = await js.consumers.get(replay.stream, { filter_subjects: replay.filter, deliver_policy: DeliverPolicy.All })
        return consumer.consume()
      },
      catch: fail(`replay ${replay.stream}`)
    }),
    (consumed) => Effect.promise(() => consumed.close().then(() => undefined, () => undefined))
  )

  const switchOver = Effect.gen(function*() {
    yield* Deferred.await(caughtUp)
    const previous = yield* backend.stores.switchTo(name, store, backend.defaults[name])
    yield* Ref.set(switched, Option.some(previous))
    yield* Effect.sleep(Duration.millis(options.graceMs))
    // Ends the replay stream below.
    yield* Effect.promise(() => messages.close().then(() => undefined, () => undefined))
    return previous
  })
  const switching = yield* Effect.forkChild(switchOver)

  // Subjects are projected on lanes as the live aggregator does: one job's events in order, different jobs at once.
  let dispatched = 0
  let settled = 0
  let tipDispatched = false
  const failure = yield* Ref.make<Option.Option<RebuildError>>(Option.none())
  const projected = Effect.suspend(() => {
    done++
    bar.update(done, total)
    // Caught up: the stream's tip at some moment was delivered, and everything delivered is projected.
    return tipDispatched && done === dispatched ? Deferred.succeed(caughtUp, undefined) : Effect.void
  })
  const lanes = yield* makeSubjectLanes<JsMsg>({
    lanes: REBUILD_LANES,
    capacity: 64,
    keyOf: (msg) => msg.subject,
    handle: (msg) =>
      replay.handle(msg).pipe(
        Effect.retry({ times: 5 }),
        Effect.matchEffect({
          onSuccess: () => projected,
          // The first failure stops the replay: the stream is closed and the rebuild fails below.
          onFailure: (cause) =>
            Ref.set(failure, Option.some(fail(`project ${msg.subject} #${msg.seq}`)(cause))).pipe(
              Effect.andThen(Effect.promise(() => messages.close().then(() => undefined, () => undefined)))
            )
        }),
        Effect.ensuring(Effect.sync(() => void settled++))
      )
  })
  const dispatch = (msg: JsMsg) =>
    Effect.suspend(() => {
      dispatched++
      total = Math.max(total, dispatched + msg.info.pending)
      if (msg.info.pending === 0) tipDispatched = true
      return lanes.dispatch(msg)
    })

  const streamed = yield* Effect.result(Stream.fromAsyncIterable(messages, fail(`replay ${replay.stream}`)).pipe(Stream.runForEach(dispatch)))
  // The stream ends when the grace period closes it (or on a failure); the lanes finish what they hold first.
  while (settled < dispatched) yield* Effect.sleep(Duration.millis(10))
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

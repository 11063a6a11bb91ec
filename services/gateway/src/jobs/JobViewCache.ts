// In-process job views for GET /v1/jobs: a miss reads the read model plus the job's newer events; an ordered consumer keeps hits current.
import { DeliverPolicy } from "@nats-io/jetstream"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { EventStore, type EventStoreError } from "@mds/shared/eventstore/EventStore"
import { ALL_JOBS_SUBJECT, JOBS_STREAM, jobSubject } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { Context, Deferred, Effect, Layer, Option, Schema } from "effect"

/** Views kept (least recently read dropped first): about 1 KB each, so a few MB; a dropped view is simply loaded again. */
export const JOB_VIEW_CACHE_SIZE = 10_000

const decodeJobEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))

interface Buffered {
  readonly seq: number
  readonly event: JobEvent
}

/**
 * Why a view stays exact: the consumer starts right after the stream's last sequence as seen before any view is
 * cached, and every later job event reaches it in order. A view is loaded from the stream after its subject was
 * marked pending, so an event is either already in what the load reads, or delivered while pending (buffered and
 * folded in afterwards), or delivered once the view is cached (folded in at once). evolveJobView skips events at or
 * below the view's lastSeq, so an event seen twice changes nothing. If the consumer stops, every view is dropped.
 */
export class JobViewCache extends Context.Service<JobViewCache, {
  /** The job's view as of its latest event (fresher than the read model, which the aggregator fills later). */
  get(projectId: string, jobId: string): Effect.Effect<Option.Option<JobView>, ReadModelError | EventStoreError>
  /** The cached view (what get answers then, without I/O), or undefined when get would have to load it. */
  peek(projectId: string, jobId: string): JobView | undefined
}>()("mds/gateway/jobs/JobViewCache") {
  static readonly layer = Layer.effect(
    JobViewCache,
    Effect.gen(function*() {
      const { js, jsm } = yield* NatsClient
      const store = yield* EventStore
      const readModel = yield* JobReadModel
      /** By job subject; Map order is recency order (a hit moves its view to the end). */
      const views = new Map<string, JobView>()
      const pending = new Map<string, Array<Buffered>>()
      /** Bumped whenever the consumer stops or starts: a load that began in another generation is not cached. */
      let generation = 0
      let following = false
      const firstStart = yield* Deferred.make<void>()

      const remember = (subject: string, view: JobView) => {
        views.delete(subject)
        views.set(subject, view)
        if (views.size > JOB_VIEW_CACHE_SIZE) {
          const oldest = views.keys().next()
          if (oldest.done !== true) views.delete(oldest.value)
        }
      }

      const onEvent = (subject: string, seq: number, data: string) => {
        const cached = views.get(subject)
        const buffer = pending.get(subject)
        // Most events belong to jobs nobody is reading here: skip them before paying for decoding.
        if (cached === undefined && buffer === undefined) return
        const event = decodeJobEvent(data)
        if (Option.isNone(event)) return
        if (cached !== undefined) {
          const next = evolveJobView(cached, event.value, seq)
          if (next !== null && next !== cached) views.set(subject, next)
        } else buffer?.push({ seq, event: event.value })
      }

      const stopFollowing = Effect.sync(() => {
        following = false
        generation++
        views.clear()
      })

      const follow = Effect.gen(function*() {
        const messages = yield* Effect.acquireRelease(
          Effect.tryPromise(async () => {
            const info = await jsm.streams.info(JOBS_STREAM.name)
            const consumer = await js.consumers.get(JOBS_STREAM.name, {
              filter_subjects: ALL_JOBS_SUBJECT,
              deliver_policy: DeliverPolicy.StartSequence,
              opt_start_seq: info.state.last_seq + 1
            })
            return consumer.consume()
          }),
          (iterator) => Effect.promise(() => iterator.close().then(() => undefined, () => undefined))
        )
        generation++
        following = true
        yield* Deferred.succeed(firstStart, undefined)
        yield* Effect.tryPromise(async () => {
          for await (const message of messages) onEvent(message.subject, message.seq, message.string())
        })
      }).pipe(
        Effect.scoped,
        Effect.catchCause((cause) => Effect.logWarning("job view consumer stopped; restarting", cause)),
        Effect.ensuring(stopFollowing),
        Effect.andThen(Effect.sleep("1 second")),
        Effect.forever
      )
      yield* Effect.forkScoped(follow)
      // Serving starts with the cache working where NATS allows; a slow start only means uncached reads for a while.
      yield* Deferred.await(firstStart).pipe(Effect.timeout("5 seconds"), Effect.ignore)

      /** The projected view and the job's events after it (all of them when it is not projected yet). */
      const load = Effect.fn("JobViewCache.load")(function*(projectId: string, jobId: string) {
        const subject = jobSubject(projectId, jobId)
        const projected = Option.getOrNull(yield* readModel.get(projectId, jobId))
        const newer = yield* store.readSubject(JobEvent, subject, projected?.lastSeq ?? 0).pipe(
          // With a projected view in hand, an unreadable newer event only costs freshness (the aggregator steps over it too).
          projected === null ? (self) => self : Effect.orElseSucceed(() => [])
        )
        let view = projected
        for (const stored of newer) view = evolveJobView(view, stored.event, stored.seq)
        return view
      })

      // Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
      const peek = (projectId: string, jobId: string): JobView | undefined => {
        const subject = jobSubject(projectId, jobId)
        const hit = views.get(subject)
        if (hit !== undefined) remember(subject, hit)
        return hit
      }

      const get = Effect.fnUntraced(function*(projectId: string, jobId: string) {
        const hit = peek(projectId, jobId)
        if (hit !== undefined) return Option.some(hit)
        const subject = jobSubject(projectId, jobId)
        // Not followed (starting, restarting) or already being loaded by another request: read without caching.
        if (!following || pending.has(subject)) return Option.fromNullishOr(yield* load(projectId, jobId))
        const startedIn = generation
        const buffer: Array<Buffered> = []
        pending.set(subject, buffer)
        const view = yield* load(projectId, jobId).pipe(
          // One synchronous step from the loaded view to the cached one: no event can slip in between.
          Effect.map((loaded) => {
            pending.delete(subject)
            let current = loaded
            for (const { event, seq } of buffer) current = evolveJobView(current, event, seq)
            if (current !== null && startedIn === generation && following) remember(subject, current)
            return current
          }),
          Effect.ensuring(Effect.sync(() => {
            if (pending.get(subject) === buffer) pending.delete(subject)
          }))
        )
        return Option.fromNullishOr(view)
      })

      return JobViewCache.of({ get, peek })
    })
  )
}

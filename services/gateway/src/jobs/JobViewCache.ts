// In-process mirror of the job read model for GET /v1/jobs: a miss reads the read model plus the job's newer events;
// a watch of the read model's KV bucket keeps hits current, and the gateway seeds the views it just wrote.
import { JobView } from "@mds/shared/domain/job/JobView"
import type { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { Followers } from "@mds/shared/nats/Followers"
import type { NatsClient } from "@mds/shared/nats/NatsClient"
import { type Follower, type FollowedMessage, startFollower } from "@mds/shared/nats/StreamFollower"
import { JOBS_BUCKET, jobViewSubject } from "@mds/shared/readmodel/kv/KvJobReadModel"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { configuredBackend } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { Context, Deferred, Effect, Fiber, Layer, Option, Schema, type Scope } from "effect"
import { LRUCache } from "lru-cache"

/** Views kept (least recently read dropped first): about 1 KB each, so a few MB; a dropped view is simply loaded again. */
export const JOB_VIEW_CACHE_SIZE = 10_000

/** Name of the follower in /v1/health. */
export const JOB_VIEWS_FOLLOWER = "job_views"

/** How often the read model's store pointer is looked up again: a rebuild's switch moves the watch to the new bucket. */
const POINTER_CHECK_MS = 2_000

const decodeView = Schema.decodeUnknownOption(Schema.fromJsonString(JobView))

const keyOf = (projectId: string, jobId: string) => `${projectId}.${jobId}`

/**
 * Why a view stays exact: the aggregator is the one writer of job views (KV, compare-and-set on lastSeq); this is a
 * mirror. The watch starts at the bucket's end before any view is cached, and every later write reaches it in order.
 * A view is loaded after its key was marked pending, so a write is either in what the load read, or delivered while
 * pending (kept and applied afterwards), or delivered once the view is cached. A view only ever moves to a higher
 * lastSeq, so the gateway's own seeds (fresher than the read model) and writes seen twice change nothing. While the
 * watch is not delivering, peek answers nothing and get reads the read model and the events, caching nothing.
 */
export class JobViewCache extends Context.Service<
  JobViewCache,
  {
    /** The job's view as of its latest event (the read model completed with the events it does not have yet). */
    get(projectId: string, jobId: string): Effect.Effect<Option.Option<JobView>, ReadModelError | EventStoreError>
    /** The cached view (what get answers then, without I/O), or undefined when get would have to load it. */
    peek(projectId: string, jobId: string): JobView | undefined
    /** A view this gateway just wrote the events of (read-your-writes without a round trip): kept if newer. */
    seed(view: JobView): void
  }
>()("mds/gateway/jobs/JobViewCache") {
  static readonly layer = Layer.effect(
    JobViewCache,
    Effect.gen(function* () {
      const jobStates = yield* JobStates
      const followers = yield* Followers
      /** By "<projectId>.<jobId>"; the least recently read (or written) dropped first beyond the size. */
      const views = new LRUCache<string, JobView>({ max: JOB_VIEW_CACHE_SIZE })
      const pending = new Map<string, Array<JobView>>()
      let follower: Follower | undefined
      /** Bumped whenever the watch is replaced: a load that began before is not cached. */
      let generation = 0
      const following = () => follower !== undefined && follower.state() === "following"

      const remember = (key: string, view: JobView) => {
        views.set(key, view)
      }

      const newer = (current: JobView | undefined, next: JobView) => current === undefined || next.lastSeq > current.lastSeq

      /** The later of two views of one job (by the last event folded in); either may be missing. */
      const newest = (current: JobView | undefined, next: JobView | undefined) =>
        next !== undefined && newer(current, next) ? next : current

      const onWrite = (message: FollowedMessage) => {
        // A subject that is not a job document's is skipped (the rule in SubjectKind.ts).
        const ids = jobViewSubject.parse(message.subject)
        if (Option.isNone(ids)) return
        const key = keyOf(ids.value.projectId, ids.value.jobId)
        const cached = views.peek(key)
        const buffer = pending.get(key)
        // Most writes are of jobs nobody reads here: skip them before paying for decoding.
        if (cached === undefined && buffer === undefined) return
        // A removed document (expiry): the next read loads what is left from the read model and the events.
        if (message.kvOperation !== undefined) {
          views.delete(key)
          return
        }
        const view = decodeView(message.data)
        if (Option.isNone(view)) return
        if (cached !== undefined) {
          if (newer(cached, view.value)) views.set(key, view.value)
        } else buffer?.push(view.value)
      }

      /** Follows one bucket until the scope closes; the views of another bucket are dropped first. */
      const watch = (bucket: string): Effect.Effect<void, never, NatsClient | Scope.Scope> =>
        Effect.gen(function* () {
          generation++
          views.clear()
          follower = yield* startFollower({
            name: JOB_VIEWS_FOLLOWER,
            stream: `KV_${bucket}`,
            filterSubject: jobViewSubject.within(bucket),
            from: "new",
            onMessage: onWrite
          })
          followers.register(follower)
        })

      // With MongoDB read models there is no bucket to watch: every read goes to the read model (and the events).
      const backend = yield* configuredBackend
      if (backend === "kv") {
        const stores = yield* ReadModelStores
        const firstWatch = yield* Deferred.make<void>()
        const followPointer = Effect.gen(function* () {
          let bucket = yield* stores.current("jobs", JOBS_BUCKET)
          while (true) {
            const running = yield* Effect.forkScoped(Effect.scoped(Effect.andThen(watch(bucket), Effect.never)))
            yield* Deferred.succeed(firstWatch, undefined)
            let next = bucket
            while (next === bucket) {
              yield* Effect.sleep(POINTER_CHECK_MS)
              next = yield* stores.current("jobs", JOBS_BUCKET).pipe(Effect.orElseSucceed(() => bucket))
            }
            yield* Effect.logInfo("job view mirror follows a rebuilt read model", { from: bucket, to: next })
            yield* Fiber.interrupt(running)
            bucket = next
          }
        }).pipe(Effect.catchCause((cause) => Effect.logWarning("job view mirror stopped following the store pointer", cause)))
        yield* Effect.forkScoped(followPointer)
        // Serving starts with the mirror working where NATS allows; a slow start only means uncached reads for a while.
        yield* Deferred.await(firstWatch).pipe(Effect.timeout("5 seconds"), Effect.ignore)
      }

      /** The job's state now: the projected view and the job's events after it. */
      const load = (projectId: string, jobId: string) => Effect.map(jobStates.current(projectId, jobId), (job) => job.state)

      // Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
      const peek = (projectId: string, jobId: string): JobView | undefined => {
        if (!following()) return undefined
        const key = keyOf(projectId, jobId)
        return views.get(key)
      }

      const seed = (view: JobView) => {
        if (!following()) return
        const key = keyOf(view.projectId, view.id)
        if (newer(views.peek(key), view)) remember(key, view)
      }

      const get = Effect.fnUntraced(function* (projectId: string, jobId: string) {
        const hit = peek(projectId, jobId)
        if (hit !== undefined) return Option.some(hit)
        const key = keyOf(projectId, jobId)
        const startedIn = generation
        // Not mirrored (starting, recovering, MongoDB) or already being loaded by another request: read, and answer the
        // newest of what was read and what this gateway knew. A job never goes back: a replica still catching up (a
        // node restarting) can serve an older document, and the newer events then fail to read as often as not.
        if (!following() || pending.has(key)) {
          const loaded = (yield* load(projectId, jobId)) ?? undefined
          const known = views.peek(key)
          const answer = newest(known, loaded)
          // A known entry moves forward while the mirror recovers: its consumer resumes after the last write it
          // delivered, so later writes still reach the entry.
          if (known !== undefined && answer !== undefined && answer !== known && startedIn === generation) remember(key, answer)
          return Option.fromNullishOr(answer)
        }
        const buffer: Array<JobView> = []
        pending.set(key, buffer)
        const view = yield* load(projectId, jobId).pipe(
          // One synchronous step from the loaded view to the cached one: no write can slip in between.
          Effect.map((loaded) => {
            pending.delete(key)
            // The newest of what was loaded, written meanwhile, or seeded meanwhile by this gateway.
            let current = loaded ?? undefined
            for (const candidate of [...buffer, views.peek(key)]) current = newest(current, candidate)
            if (current !== undefined && startedIn === generation && following()) remember(key, current)
            return current ?? null
          }),
          Effect.ensuring(
            Effect.sync(() => {
              if (pending.get(key) === buffer) pending.delete(key)
            })
          )
        )
        return Option.fromNullishOr(view)
      })

      return JobViewCache.of({ get, peek, seed })
    })
  )
}

// The gateway's job view mirror on a real nats-server: read-your-writes on a miss, hits kept current by a watch of the
// KV read model (written here as the aggregator writes it), seeds, and no answers from memory while the watch is down.
import { assert, layer } from "@effect/vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { EventStore, EventStoreError } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { Followers } from "@mds/shared/nats/Followers"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { Context, Effect, Layer, Option } from "effect"
import { TestNats, TestNatsServer } from "../../../test/int/support/TestNats.ts"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { JobViewCache } from "../src/jobs/JobViewCache.ts"
import { jobProgressed, jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"

/** Counts read-model reads, to tell a cache hit from a round trip. */
class ReadCount extends Context.Service<ReadCount, { value: number }>()("mds/test/ReadCount") {}

const Counts = Layer.sync(ReadCount, () => ({ value: 0 }))

/** When set, what a replica still catching up answers: an older read-model document, and event reads that fail. */
class Lagging extends Context.Service<Lagging, { document: JobView | null }>()("mds/test/Lagging") {}

const LaggingReplica = Layer.sync(Lagging, () => ({ document: null }))

/** The real read model, its reads counted, answering the lagging document when one is set. */
const TestReadModel = Layer.effect(
  JobReadModel,
  Effect.gen(function* () {
    const inner = yield* JobReadModel
    const count = yield* ReadCount
    const lagging = yield* Lagging
    return JobReadModel.of({
      ...inner,
      get: (projectId, jobId) =>
        Effect.suspend(() => {
          count.value++
          return lagging.document === null ? inner.get(projectId, jobId) : Effect.succeed(Option.some(lagging.document))
        })
    })
  })
)

const LaggingEvents = Layer.effect(
  EventStore,
  Effect.gen(function* () {
    const inner = yield* EventStore
    const lagging = yield* Lagging
    return EventStore.of({
      ...inner,
      readSubject: (codec, subject, afterSeq) =>
        lagging.document === null
          ? inner.readSubject(codec, subject, afterSeq)
          : Effect.fail(new EventStoreError({ operation: "readSubject", message: "timeout" }))
    })
  })
)

const TestLayer = JobViewCache.layer.pipe(
  Layer.provideMerge(JobStates.layer),
  Layer.provideMerge(TestReadModel),
  Layer.provideMerge(KvReadModels),
  Layer.provideMerge(LaggingEvents),
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Counts, Followers.layer, LaggingReplica)),
  Layer.provideMerge(TestNats)
)

const T0 = 1_767_225_600_000
const projectId = newId("prj")

const queued = (jobId: string): JobEvent => jobQueued(projectId, jobId, T0)
const started = (jobId: string): JobEvent => jobStarted(jobId, T0 + 1)
const progressed = (jobId: string, percent: number): JobEvent => jobProgressed(jobId, percent, T0 + 2 + percent)

const append = (jobId: string, event: JobEvent, n: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    return yield* store.append(JobEventCodec, jobSubject(projectId, jobId), event, { msgId: `${event._tag}:${jobId}:${n}` })
  })

/** What the aggregator does after each event: the view folded from the stream, written to the read model. */
const project = (jobId: string) =>
  Effect.gen(function* () {
    const view = yield* folded(jobId)
    if (view !== null) yield* (yield* JobReadModel).put(view)
  })

/** An event appended and then projected, as in production (the mirror sees the read model, not the events). */
const appendAndProject = (jobId: string, event: JobEvent, n: number) => Effect.andThen(append(jobId, event, n), project(jobId))

/** Waits (up to 10 s) until the mirror's watch is in `state`, and fails the test if it is not. */
const mirrorIs = (state: "following" | "recovering") =>
  Effect.gen(function* () {
    const followers = yield* Followers
    yield* eventuallyEffect(
      Effect.sync(() => followers.snapshot()["job_views"]),
      (now) => now === state,
      `the mirror's watch ${state}`,
      10_000
    )
  })

/** Waits until the mirror's watch delivers (it starts "recovering" and turns "following" within about a second). */
const mirrorFollowing = mirrorIs("following")

/** Stops the nats-server and waits until the mirror notices that its watch cannot deliver. */
const natsDown = Effect.gen(function* () {
  const server = yield* TestNatsServer
  yield* Effect.promise(() => server.stop())
  yield* mirrorIs("recovering")
})

/** Starts the nats-server again and waits until the mirror's re-created watch delivers. */
const natsUp = Effect.gen(function* () {
  const server = yield* TestNatsServer
  yield* Effect.promise(() => server.start())
  yield* mirrorFollowing
})

/** The view folded from the job's stream, as the truth to compare the cache against. */
const folded = (jobId: string) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    let view: JobView | null = null
    for (const stored of yield* store.readSubject(JobEventCodec, jobSubject(projectId, jobId)))
      view = evolveJobView(view, stored.event, stored.seq)
    return view
  })

/** Polls the cache until `ok` holds (the consumer delivers asynchronously); bounded to 5 s. */
const eventually = (jobId: string, ok: (view: JobView | null) => boolean) =>
  Effect.gen(function* () {
    const cache = yield* JobViewCache
    return yield* eventuallyEffect(Effect.map(cache.get(projectId, jobId), Option.getOrNull), ok, `the cached view of ${jobId}`, 5_000)
  })

// Live clock: the consumer delivers in real time and the polls sleep for real.
layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("JobViewCache", (it) => {
  it.effect("a job queued a moment ago is found from its events; later read-model writes reach the cached view without another read", () =>
    Effect.gen(function* () {
      const cache = yield* JobViewCache
      const reads = yield* ReadCount
      const jobId = newId("job")
      yield* mirrorFollowing
      yield* append(jobId, queued(jobId), 0)
      const first = yield* cache.get(projectId, jobId)
      assert.strictEqual(Option.getOrNull(first)?.status, "queued")
      assert.strictEqual(cache.peek(projectId, jobId)?.status, "queued", "a miss is cached while the mirror follows")
      const readsAfterMiss = reads.value

      yield* appendAndProject(jobId, started(jobId), 1)
      yield* appendAndProject(jobId, progressed(jobId, 40), 2)
      const view = yield* eventually(jobId, (v) => v?.progress === 40)
      assert.strictEqual(view?.status, "processing")
      assert.strictEqual(view?.progress, 40)
      assert.deepStrictEqual(view, yield* folded(jobId))
      assert.strictEqual(reads.value, readsAfterMiss, "hits never read the read model")
    })
  )

  it.effect("a projected view is completed with the events the read model does not have yet", () =>
    Effect.gen(function* () {
      const cache = yield* JobViewCache
      const readModel = yield* JobReadModel
      const jobId = newId("job")
      const first = yield* append(jobId, queued(jobId), 0)
      yield* readModel.put(evolveJobView(null, queued(jobId), first.seq)!)
      yield* append(jobId, started(jobId), 1)
      const view = Option.getOrNull(yield* cache.get(projectId, jobId))
      assert.strictEqual(view?.status, "processing")
      assert.deepStrictEqual(view, yield* folded(jobId))
    })
  )

  it.effect("views first read while their jobs' read-model documents are written concurrently all end equal to their streams", () =>
    Effect.gen(function* () {
      const cache = yield* JobViewCache
      const jobIds = Array.from({ length: 20 }, () => newId("job"))
      yield* mirrorFollowing
      yield* Effect.forEach(jobIds, (jobId) => appendAndProject(jobId, queued(jobId), 0), { concurrency: "unbounded" })
      const done = new Set<string>()
      const writer = (jobId: string) =>
        Effect.gen(function* () {
          yield* appendAndProject(jobId, started(jobId), 1)
          for (let percent = 10; percent <= 50; percent += 10) {
            // Spread out, so that views are cached before, during and between the writes: a random jitter that makes
            // the race, not a wait for anything (this file's only sleeps).
            yield* Effect.sleep(`${Math.floor(Math.random() * 8)} millis`)
            yield* appendAndProject(jobId, progressed(jobId, percent), percent)
          }
          done.add(jobId)
        })
      // Reads all along the writes, so views get cached at every point of their history.
      const reader = (jobId: string) =>
        Effect.gen(function* () {
          while (!done.has(jobId)) {
            yield* cache.get(projectId, jobId)
            yield* Effect.sleep("1 millis")
          }
        })
      yield* Effect.forEach(jobIds, (jobId) => Effect.all([writer(jobId), reader(jobId)], { concurrency: 2 }), {
        concurrency: "unbounded"
      })
      for (const jobId of jobIds) {
        const view = yield* eventually(jobId, (v) => v?.progress === 50)
        assert.deepStrictEqual(view, yield* folded(jobId), jobId)
      }
    })
  )

  it.effect("an unknown job is not found and not remembered as missing", () =>
    Effect.gen(function* () {
      const cache = yield* JobViewCache
      const jobId = newId("job")
      assert.isTrue(Option.isNone(yield* cache.get(projectId, jobId)))
      yield* append(jobId, queued(jobId), 0)
      assert.strictEqual(Option.getOrNull(yield* cache.get(projectId, jobId))?.status, "queued")
    })
  )

  it.effect("a seeded view answers at once and is never moved back by an older read-model write", () =>
    Effect.gen(function* () {
      const cache = yield* JobViewCache
      const jobId = newId("job")
      yield* mirrorFollowing
      const first = yield* append(jobId, queued(jobId), 0)
      const second = yield* append(jobId, started(jobId), 1)
      cache.seed(evolveJobView(evolveJobView(null, queued(jobId), first.seq), started(jobId), second.seq)!)
      assert.strictEqual(cache.peek(projectId, jobId)?.status, "processing")
      // The aggregator, behind, writes the queued view: the mirror keeps the newer seed.
      const readModel = yield* JobReadModel
      yield* readModel.put(evolveJobView(null, queued(jobId), first.seq)!)
      // The watch delivers in order: once a later write (of another job) reached the mirror, the older one did too.
      const marker = newId("job")
      cache.seed(evolveJobView(null, queued(marker), 1)!)
      yield* readModel.put(evolveJobView(null, queued(marker), 2)!)
      yield* eventuallyEffect(
        Effect.sync(() => cache.peek(projectId, marker)?.lastSeq),
        (seq) => seq === 2,
        "the mirror past the older write",
        5_000
      )
      assert.strictEqual(cache.peek(projectId, jobId)?.status, "processing")
      yield* appendAndProject(jobId, progressed(jobId, 70), 2)
      const view = yield* eventually(jobId, (v) => v?.progress === 70)
      assert.deepStrictEqual(view, yield* folded(jobId))
    })
  )

  it.effect(
    "while its watch cannot deliver (NATS down), nothing is answered from memory; afterwards it follows again",
    () =>
      Effect.gen(function* () {
        const cache = yield* JobViewCache
        const jobId = newId("job")
        yield* mirrorFollowing
        yield* appendAndProject(jobId, queued(jobId), 0)
        yield* cache.get(projectId, jobId)
        assert.strictEqual(cache.peek(projectId, jobId)?.status, "queued")

        yield* natsDown
        assert.strictEqual(cache.peek(projectId, jobId), undefined, "no answer from a mirror that stopped")

        yield* natsUp
        // Written after the restart: it reaches the view kept from before, through the re-created watch.
        yield* appendAndProject(jobId, started(jobId), 1)
        const view = yield* eventually(jobId, (v) => v?.status === "processing")
        assert.deepStrictEqual(view, yield* folded(jobId))
        assert.strictEqual(cache.peek(projectId, jobId)?.status, "processing")
      }),
    60_000
  )

  it.effect(
    "a job read while the mirror recovers never goes back: an older document from a replica behind, with its events unreadable, leaves the newer view",
    () =>
      Effect.gen(function* () {
        const cache = yield* JobViewCache
        const lagging = yield* Lagging
        const jobId = newId("job")
        yield* mirrorFollowing
        const first = yield* append(jobId, queued(jobId), 0)
        yield* project(jobId)
        yield* appendAndProject(jobId, started(jobId), 1)
        yield* appendAndProject(jobId, progressed(jobId, 40), 2)
        assert.strictEqual((yield* eventually(jobId, (v) => v?.progress === 40))?.progress, 40)

        yield* natsDown
        lagging.document = evolveJobView(null, queued(jobId), first.seq)
        const read = yield* Effect.ensuring(
          cache.get(projectId, jobId),
          Effect.sync(() => {
            lagging.document = null
          })
        )
        assert.strictEqual(Option.getOrNull(read)?.progress, 40, "the view this gateway already knew, not the replica's older one")

        yield* natsUp
        assert.deepStrictEqual(yield* eventually(jobId, (v) => v?.progress === 40), yield* folded(jobId))
      }),
    60_000
  )
})

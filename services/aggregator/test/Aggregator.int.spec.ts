// The aggregator end to end on a real nats-server: the KV read models equal the fold of the streams, rebuild identically, survive poison.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { type MediaResolved, MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { JOBS_STREAM, jobSubject, MEDIA_STREAM, mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { KvJobReadModel } from "@mds/shared/readmodel/kv/KvJobReadModel"
import { KvMediaReadModel } from "@mds/shared/readmodel/kv/KvMediaReadModel"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { defaultAggregatorOptions, runProjections } from "../src/projections/Aggregator.ts"
import { withDurablePrefix } from "../src/projections/Projection.ts"
import { JobProjection, jobsProjection } from "../src/jobs/JobProjection.ts"
import { MediaProjection, mediaProjection } from "../src/media/MediaProjection.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { jobArtifact, jobCompleted, jobFailed, jobProgressed, jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"
import { Parking } from "../src/consumers/Parking.ts"

/** The job read model on KV, except that the first `failures` writes fail (a store that is briefly down). */
const flakyJobReadModel = (bucket: string, failures: number) =>
  Layer.effect(
    JobReadModel,
    Effect.map(JobReadModel, (kv) => {
      let left = failures
      return JobReadModel.of({
        ...kv,
        putAt: (view, revision) =>
          left-- > 0
            ? Effect.fail(new ReadModelError({ operation: "putAt", message: "store briefly down", unavailable: true }))
            : kv.putAt(view, revision)
      })
    })
  ).pipe(Layer.provide(KvJobReadModel.layerWithBucket(bucket)))

/** One aggregator instance with its own consumers and buckets, as a fresh deployment would have. */
const aggregatorInstance = (name: string, writeFailures = 0) =>
  runProjections(withDurablePrefix(name, [jobsProjection, mediaProjection]), { ...defaultAggregatorOptions, retryDelayMs: 200 }).pipe(
    Layer.provide(Layer.mergeAll(JobProjection.layer, MediaProjection.layer).pipe(Layer.provide(SubjectHistory.layer))),
    Layer.provideMerge(Layer.mergeAll(flakyJobReadModel(`${name}_jobs`, writeFailures), KvMediaReadModel.layerWithBucket(`${name}_media`)))
  )

interface Recorded {
  readonly projectId: string
  readonly jobId: string
  readonly events: Array<readonly [number, JobEvent]>
}

const T = 1_700_000_000_000
const queued = (projectId: string, jobId: string): JobEvent =>
  jobQueued(projectId, jobId, T, { platform: "vimeo", source: { url: "https://vimeo.com/1", mediaId: null } })
const started = (jobId: string): JobEvent => jobStarted(jobId, T + 10)
const progressed = (jobId: string, percent: number): JobEvent => jobProgressed(jobId, percent, T + 20 + percent)
const completed = (jobId: string): JobEvent =>
  jobCompleted("prj", jobId, T + 200, jobArtifact("prj", jobId, T, { key: `prj/${jobId}/clip.mp4`, sizeBytes: 1234 }))
const failed = (jobId: string): JobEvent => jobFailed(jobId, T + 150)

/** What the read model must hold: the fold of the recorded events (a completed job's link is signed where it is answered). */
const expectedView = (job: Recorded): JobView | null =>
  job.events.reduce<JobView | null>((view, [seq, event]) => evolveJobView(view, event, seq), null)

const shared = Layer.mergeAll(JetStreamEventStore, Parking.layer).pipe(Layer.provideMerge(TestNats))

layer(shared, { timeout: 120_000, excludeTestServices: true })("aggregator", (it) => {
  it.effect("projects job and media streams, steps over poison, retries failed writes, and rebuilds identically", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { js, jsm } = yield* NatsClient
      const record = (job: Recorded, event: JobEvent) =>
        Effect.map(
          store.append(JobEventCodec, jobSubject(job.projectId, job.jobId), event, { msgId: `${job.jobId}-${job.events.length}` }),
          (appended) => void job.events.push([appended.seq, event])
        )
      const poison = (subject: string) => Effect.promise(() => js.publish(subject, '{"_tag":"JobStarted","v":99}'))

      const projectA = newId("prj")
      const projectB = newId("prj")
      const done: Recorded = { projectId: projectA, jobId: newId("job"), events: [] }
      const broken: Recorded = { projectId: projectA, jobId: newId("job"), events: [] }
      const poisoned: Recorded = { projectId: projectB, jobId: newId("job"), events: [] }
      const orphan: Recorded = { projectId: projectB, jobId: newId("job"), events: [] }

      // Written before any aggregator runs: a fresh instance must catch up from the start of the streams.
      for (const event of [
        queued(projectA, done.jobId),
        started(done.jobId),
        progressed(done.jobId, 40),
        progressed(done.jobId, 90),
        completed(done.jobId)
      ]) {
        yield* record(done, event)
      }
      for (const event of [queued(projectA, broken.jobId), started(broken.jobId), failed(broken.jobId), progressed(broken.jobId, 50)]) {
        yield* record(broken, event)
      }
      yield* record(poisoned, queued(projectB, poisoned.jobId))
      yield* poison(jobSubject(projectB, poisoned.jobId))
      yield* record(poisoned, started(poisoned.jobId))
      // Events of a job whose JobQueued is missing produce no document.
      yield* record(orphan, started(orphan.jobId))

      const media: MediaResolved = resolvedMedia()
      yield* store.append(MediaEvent, mediaSubject(media.mediaId), media, { msgId: media.mediaId })
      yield* Effect.promise(() => js.publish(mediaSubject(newId("med")), "not json"))

      const jobs = [done, broken, poisoned, orphan]
      const readAll = Effect.gen(function* () {
        const readModel = yield* JobReadModel
        return yield* Effect.forEach(jobs, (job) => Effect.map(readModel.get(job.projectId, job.jobId), Option.getOrNull))
      })
      const matchesFold = (docs: ReadonlyArray<JobView | null>) =>
        docs.every((doc, i) => JSON.stringify(doc) === JSON.stringify(expectedView(jobs[i]!)))

      const firstRun = yield* Effect.gen(function* () {
        // The first two writes fail: those events are nak'd, redelivered and projected later.
        yield* eventuallyEffect(readAll, matchesFold, "the read model to equal the fold of the stream")
        assert.deepStrictEqual(yield* readAll, jobs.map(expectedView))
        assert.isNull((yield* readAll)[3])
        assert.strictEqual((yield* readAll)[0]?.status, "completed")

        const mediaModel = yield* MediaReadModel
        const found = yield* eventuallyEffect(mediaModel.get(media.mediaId), Option.isSome, "the media document")
        assert.deepStrictEqual(found, Option.some(media))
        assert.deepStrictEqual(yield* mediaModel.findByUrl(media.url), Option.some(media))

        // Live events after start are projected too, past the poison message in the same subject.
        yield* record(poisoned, progressed(poisoned.jobId, 30))
        yield* record(poisoned, completed(poisoned.jobId))
        const docs = yield* eventuallyEffect(readAll, matchesFold, "live events to be projected")
        assert.strictEqual(docs[2]?.status, "completed")

        // Poison messages were terminated, not left pending or redelivered forever.
        const consumerIdle = (stream: string, durable: string) =>
          eventuallyEffect(
            Effect.promise(() => jsm.consumers.info(stream, durable)),
            (info) => info.num_ack_pending === 0 && info.num_pending === 0,
            `${durable} to have nothing pending`
          )
        yield* consumerIdle(JOBS_STREAM.name, "first-aggregator-jobs")
        yield* consumerIdle(MEDIA_STREAM.name, "first-aggregator-media")
        return docs
      }).pipe(Effect.provide(aggregatorInstance("first", 2)))

      // A second deployment with new consumers and buckets replays everything and ends with the same documents.
      const rebuilt = yield* Effect.gen(function* () {
        const docs = yield* eventuallyEffect(readAll, matchesFold, "the rebuilt read model")
        const mediaModel = yield* MediaReadModel
        assert.deepStrictEqual(yield* eventuallyEffect(mediaModel.get(media.mediaId), Option.isSome, "rebuilt media"), Option.some(media))
        return docs
      }).pipe(Effect.provide(aggregatorInstance("second")))
      assert.deepStrictEqual(rebuilt, firstRun)
    })
  )
})

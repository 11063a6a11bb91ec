// SRE replay on a real nats-server: a rebuild beside the running aggregator ends with the same read model, switched over live.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option } from "effect"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { jobSubject, mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { JOBS_BUCKET } from "@mds/shared/readmodel/kv/KvJobReadModel"
import { MEDIA_BUCKET } from "@mds/shared/readmodel/kv/KvMediaReadModel"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { ReadModelBackend } from "@mds/shared/readmodel/ReadModelBackend"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { defaultAggregatorOptions, runProjections } from "../src/projections/Aggregator.ts"
import { JobProjection, jobsProjection } from "../src/jobs/JobProjection.ts"
import { MediaProjection, mediaProjection } from "../src/media/MediaProjection.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { rebuildReadModel } from "../src/rebuild/ProjectionRebuild.ts"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { TestNatsServer, TestNats } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { jobArtifact, jobCompleted, jobProgressed, jobQueued } from "../../../test/support/JobEvents.ts"
import { Parking } from "../src/consumers/Parking.ts"

/** The running service: the aggregator on the read models behind their pointers, as in production. */
const live = runProjections([jobsProjection, mediaProjection], { ...defaultAggregatorOptions, retryDelayMs: 200 }).pipe(
  Layer.provide(Layer.mergeAll(JobProjection.layer, MediaProjection.layer).pipe(Layer.provide(SubjectHistory.layer))),
  Layer.provideMerge(KvReadModels),
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Parking.layer)),
  Layer.provideMerge(TestNats)
)

const T = 1_700_000_000_000
const queued = (projectId: string, jobId: string, createdAt: number): JobEvent =>
  jobQueued(projectId, jobId, createdAt, { platform: "vimeo", source: { url: "https://vimeo.com/1", mediaId: null } })
const progressed = (jobId: string, percent: number): JobEvent => jobProgressed(jobId, percent, T + percent)
const completed = (jobId: string): JobEvent =>
  jobCompleted("p", jobId, T + 200, jobArtifact("p", jobId, T, { key: `p/${jobId}/clip.mp4`, sizeBytes: 10 }))

interface Job {
  readonly projectId: string
  readonly jobId: string
  readonly events: Array<readonly [number, JobEvent]>
}

/** The fold of the job's events, nothing else: no link, so no setting of the rebuilding shell can change it. */
const expectedView = (job: Job): JobView | null =>
  job.events.reduce<JobView | null>((view, [seq, event]) => evolveJobView(view, event, seq), null)

/** A rebuild beside the live aggregator may take a while on a busy machine. */
const WAIT_MS = 20_000

const quietBar = () => ({ update: () => undefined, finish: () => undefined })

layer(live, { timeout: 120_000, excludeTestServices: true })("projections rebuild", (it) => {
  it.effect("rebuilds beside the running aggregator, switches readers and writers over, and equals the live read model", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { js, jsm } = yield* NatsClient
      const jobsModel = yield* JobReadModel
      const mediaModel = yield* MediaReadModel
      const pointers = yield* ReadModelStores
      const projectId = newId("prj")
      const jobs: Array<Job> = []
      const record = (job: Job, event: JobEvent) =>
        Effect.map(
          store.append(JobEventCodec, jobSubject(job.projectId, job.jobId), event, { msgId: `${job.jobId}-${job.events.length}` }),
          (a) => void job.events.push([a.seq, event])
        )
      const newJob = (i: number) =>
        Effect.gen(function* () {
          const job: Job = { projectId, jobId: newId("job"), events: [] }
          jobs.push(job)
          yield* record(job, queued(projectId, job.jobId, T + i))
          return job
        })

      for (let i = 0; i < 30; i++) {
        const job = yield* newJob(i)
        if (i % 3 === 0) yield* record(job, progressed(job.jobId, 40))
        if (i % 3 === 1) yield* record(job, completed(job.jobId))
      }
      yield* Effect.promise(() => js.publish(jobSubject(projectId, jobs[0]!.jobId), '{"_tag":"JobStarted","v":99}'))
      const media = Array.from({ length: 5 }, () => resolvedMedia())
      for (const m of media) yield* store.append(MediaEvent, mediaSubject(m.mediaId), m, { msgId: m.mediaId })

      const readJobs = Effect.forEach(jobs, (job) => Effect.map(jobsModel.get(job.projectId, job.jobId), Option.getOrNull))
      const matchesFold = (docs: ReadonlyArray<JobView | null>) =>
        docs.every((doc, i) => JSON.stringify(doc) === JSON.stringify(expectedView(jobs[i]!)))
      const liveBefore = yield* eventuallyEffect(readJobs, matchesFold, "the live read model", WAIT_MS)
      const listBefore = yield* jobsModel.listByProject(projectId, 100)
      yield* eventuallyEffect(
        Effect.forEach(media, (m) => mediaModel.get(m.mediaId)),
        (all) => all.every(Option.isSome),
        "live media",
        WAIT_MS
      )

      // The rebuild runs while events keep arriving and the aggregator keeps projecting them.
      const rebuilding = yield* Effect.forkChild(
        Effect.all([
          rebuildReadModel("jobs", { graceMs: 2_500, progress: quietBar }),
          rebuildReadModel("media", { graceMs: 2_500, progress: quietBar })
        ])
      )
      const moreEvents = (from: number, to: number) =>
        Effect.gen(function* () {
          for (let i = from; i < to; i++) {
            const job = yield* newJob(i)
            yield* record(job, completed(job.jobId))
            yield* record(jobs[i - 30]!, progressed(jobs[i - 30]!.jobId, 60 + i))
          }
        })
      // Half while the streams replay, half once both pointers switched (the grace period, while the live aggregator
      // may still write to the store it used before).
      yield* moreEvents(30, 35)
      const switched = Effect.all([pointers.current("jobs", JOBS_BUCKET), pointers.current("media", MEDIA_BUCKET)])
      yield* eventuallyEffect(switched, ([j, m]) => j !== JOBS_BUCKET && m !== MEDIA_BUCKET, "both pointers switched", WAIT_MS)
      yield* moreEvents(35, 40)
      const [jobsResult, mediaResult] = yield* Fiber.join(rebuilding)

      assert.strictEqual(jobsResult.previous, JOBS_BUCKET)
      assert.match(jobsResult.store, /^mds_jobs_r\d+$/)
      assert.isAtLeast(jobsResult.events, 30 * 2 - 10 + 1)
      assert.strictEqual(yield* pointers.current("jobs", JOBS_BUCKET), jobsResult.store)
      assert.strictEqual(mediaResult.events, media.length)
      // The store used before is gone; the new one holds the read model.
      const streams = yield* Effect.promise(async () => (await jsm.streams.names().next()).filter((n) => n.startsWith("KV_mds_")))
      assert.notInclude(streams, `KV_${JOBS_BUCKET}`)
      assert.include(streams, `KV_${jobsResult.store}`)

      // Every document equals the fold of its events, including events that arrived during the rebuild.
      const rebuilt = yield* eventuallyEffect(readJobs, matchesFold, "the rebuilt read model", WAIT_MS)
      const untouched = jobs.slice(10, 30).map((_, i) => i + 10)
      assert.deepStrictEqual(
        untouched.map((i) => rebuilt[i]),
        untouched.map((i) => liveBefore[i])
      )
      assert.deepStrictEqual(
        (yield* jobsModel.listByProject(projectId, 100)).filter((v) => untouched.some((i) => jobs[i]!.jobId === v.id)),
        listBefore
          .filter((v) => untouched.some((i) => jobs[i]!.jobId === v.id))
          .map((v) => rebuilt[jobs.findIndex((j) => j.jobId === v.id)]!)
      )
      for (const m of media) {
        assert.deepStrictEqual(yield* mediaModel.get(m.mediaId), Option.some(m))
        assert.deepStrictEqual(yield* mediaModel.findByUrl(m.url), Option.some(m))
      }

      // The live aggregator now writes into the rebuilt store.
      const after = yield* newJob(99)
      yield* eventuallyEffect(jobsModel.get(after.projectId, after.jobId), Option.isSome, "a job queued after the switch", WAIT_MS)

      // The same through the CLI as a process (npm run cli -- projections rebuild) from an operator's plain shell,
      // without the services' PORT, PUBLIC_BASE_URL or link secret: the read model stays equal.
      const server = yield* TestNatsServer
      const cli = yield* Effect.promise(() =>
        promisify(execFile)(
          process.execPath,
          ["services/aggregator/src/cli/main.ts", "projections", "rebuild", "--projection", "jobs", "--to", "kv"],
          {
            env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", NATS_URL: server.url },
            timeout: 60_000
          }
        )
      )
      assert.match(
        cli.stdout,
        new RegExp(
          `^jobs: ${jobs.reduce((n, j) => n + j.events.length, 1)} events replayed into kv store mds_jobs_r\\d+ \\(was ${jobsResult.store}\\)\\n$`
        )
      )
      assert.include(cli.stderr, "100%")
      // Readers follow the pointer the CLI switched (within POINTER_REFRESH_MS).
      yield* eventuallyEffect(readJobs, matchesFold, "the read model after the CLI's rebuild", WAIT_MS)
    })
  )

  it.effect(
    "in batches smaller than a job's events, with room for few documents in memory, the rebuilt jobs are the fold of their events",
    () =>
      Effect.gen(function* () {
        const store = yield* EventStore
        const { js } = yield* NatsClient
        const jobsModel = yield* JobReadModel
        const backend = yield* ReadModelBackend
        const projectId = newId("prj")
        const jobs: Array<Job> = Array.from({ length: 12 }, () => ({ projectId, jobId: newId("job"), events: [] }))
        const record = (job: Job, event: JobEvent) =>
          Effect.map(
            store.append(JobEventCodec, jobSubject(job.projectId, job.jobId), event, { msgId: `${job.jobId}-${job.events.length}` }),
            (a) => void job.events.push([a.seq, event])
          )
        // Round by round, so each job's events are spread over the stream and over many batches.
        for (const [i, job] of jobs.entries()) yield* record(job, queued(projectId, job.jobId, T + i))
        for (const job of jobs) yield* record(job, progressed(job.jobId, 20))
        yield* Effect.promise(() => js.publish(jobSubject(projectId, jobs[5]!.jobId), '{"_tag":"JobProgressed","v":99}'))
        for (const job of jobs) yield* record(job, progressed(job.jobId, 50))
        for (const job of jobs.slice(0, 8)) yield* record(job, completed(job.jobId))
        // The live aggregator is done with them first, so it writes nothing into the rebuilt store after the switch.
        yield* eventuallyEffect(
          Effect.forEach(jobs, (job) => Effect.map(jobsModel.get(job.projectId, job.jobId), Option.getOrNull)),
          (docs) => docs.every((doc, i) => JSON.stringify(doc) === JSON.stringify(expectedView(jobs[i]!))),
          "the live read model",
          WAIT_MS
        )

        const result = yield* rebuildReadModel("jobs", {
          graceMs: 0,
          progress: quietBar,
          batches: { messages: 5, documents: 3, concurrency: 2 }
        })

        assert.isAtLeast(
          result.events,
          jobs.reduce((n, job) => n + job.events.length, 1)
        )
        const rebuilt = yield* backend.openJobs(result.store)
        const docs = yield* Effect.forEach(jobs, (job) => Effect.map(rebuilt.get(job.projectId, job.jobId), Option.getOrNull))
        assert.deepStrictEqual(docs, jobs.map(expectedView))
      })
  )

  it.effect("a command it does not know is a usage error on stderr with exit code 1", () =>
    Effect.gen(function* () {
      const outcome = yield* Effect.promise(() =>
        promisify(execFile)(process.execPath, [
          "services/aggregator/src/cli/main.ts",
          "projections",
          "rebuild",
          "--projection",
          "users"
        ]).then(
          () => ({ code: 0, stderr: "" }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr })
        )
      )
      assert.strictEqual(outcome.code, 1)
      assert.include(outcome.stderr, "usage:")
    })
  )
})

// The usage projection on a real nats-server: the live aggregator's usage read model, and a replay of the job stream
// into a new store that ends equal to it.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import type { UsageDayCounts } from "@mds/shared/domain/usage/UsageDayCounts"
import { usageReport } from "@mds/shared/domain/usage/UsageReport"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { USAGE_BUCKET } from "@mds/shared/readmodel/kv/KvUsageReadModel"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { defaultAggregatorOptions, runProjections } from "../src/projections/Aggregator.ts"
import { JobProjection, jobsProjection } from "../src/jobs/JobProjection.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { rebuildReadModel } from "../src/rebuild/ProjectionRebuild.ts"
import { UsageProjection, usageProjection } from "../src/usage/UsageProjection.ts"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { jobArtifact, jobCompleted, jobExpired, jobFailed, jobProgressed, jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"
import { Parking } from "../src/consumers/Parking.ts"

const live = runProjections([jobsProjection, usageProjection], { ...defaultAggregatorOptions, retryDelayMs: 200 }).pipe(
  Layer.provide(
    Layer.mergeAll(JobProjection.layer, UsageProjection.layer.pipe(Layer.provide(JobStates.layer))).pipe(
      Layer.provide(SubjectHistory.layer)
    )
  ),
  Layer.provideMerge(KvReadModels),
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Parking.layer)),
  Layer.provideMerge(TestNats)
)

const DAY_1 = Date.UTC(2026, 10, 20, 10)
const DAY_2 = Date.UTC(2026, 10, 21, 23, 59)
const WAIT_MS = 20_000
const quietBar = () => ({ update: () => undefined, finish: () => undefined })
const byDay = (days: ReadonlyArray<UsageDayCounts>) => [...days].sort((a, b) => a.day.localeCompare(b.day))

layer(live, { timeout: 120_000, excludeTestServices: true })("usage projection", (it) => {
  it.effect("counts jobs by the day they were queued, by status, error, platform and bytes; a replay rebuilds it exactly", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const usage = yield* UsageReadModel
      const { js } = yield* NatsClient
      const projectId = newId("prj")
      const job = (at: number, platform: string, ...rest: ReadonlyArray<(jobId: string) => JobEvent>) =>
        Effect.gen(function* () {
          const jobId = newId("job")
          const events = [jobQueued(projectId, jobId, at, { platform }), ...rest.map((make) => make(jobId))]
          for (const [i, event] of events.entries()) {
            yield* store.append(JobEventCodec, jobSubject(projectId, jobId), event, { msgId: `${jobId}-${i}` })
          }
          return jobId
        })
      const started = (jobId: string) => jobStarted(jobId, DAY_1 + 1)
      const progressed = (jobId: string) => jobProgressed(jobId, 50, DAY_1 + 2)
      const completed = (bytes: number) => (jobId: string) =>
        jobCompleted(projectId, jobId, DAY_1 + 3, jobArtifact(projectId, jobId, DAY_1, { sizeBytes: bytes }))
      const failed = (code: "download_failed" | "media_unavailable") => (jobId: string) =>
        jobFailed(jobId, DAY_1 + 3, { code, message: "x", retryable: code === "download_failed" })
      const canceled = (jobId: string): JobEvent => ({ _tag: "JobCanceled", v: 1, jobId, at: DAY_1 + 3 })

      yield* job(DAY_1, "vimeo", started, progressed, completed(1_000))
      yield* job(DAY_1, "vimeo", started, completed(500))
      const failedA = yield* job(DAY_1, "generic", started, failed("download_failed"))
      yield* job(DAY_1, "vimeo", failed("media_unavailable"))
      yield* job(DAY_1, "vimeo", canceled)
      yield* job(DAY_2, "generic", started, progressed)
      const failedB = yield* job(DAY_2, "generic", started, failed("download_failed"))
      yield* job(DAY_2, "vimeo")
      yield* job(DAY_2, "vimeo", (jobId) => jobExpired(jobId, DAY_2 + 1))
      // A poison message on one job's subject is stepped over.
      yield* Effect.promise(() => js.publish(jobSubject(projectId, failedA), '{"_tag":"JobStarted","v":99}'))

      const listLive = usage.listDays(projectId, "2026-11-20", "2026-11-21")
      const settled = (all: ReadonlyArray<UsageDayCounts>) =>
        JSON.stringify(usageReport("2026-11-20", "2026-11-21", all).totals.byStatus) ===
        JSON.stringify({ queued: 1, processing: 1, completed: 2, failed: 3, expired: 1, canceled: 1 })
      const liveUsage = yield* eventuallyEffect(listLive, settled, "the live usage read model", WAIT_MS)
      const report = usageReport("2026-11-19", "2026-11-21", liveUsage)
      assert.deepStrictEqual(
        report.days.map((d) => [d.day, d.jobs, d.bytes, d.byStatus]),
        [
          ["2026-11-19", 0, 0, { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0 }],
          ["2026-11-20", 5, 1_500, { queued: 0, processing: 0, completed: 2, failed: 2, expired: 0, canceled: 1 }],
          ["2026-11-21", 4, 0, { queued: 1, processing: 1, completed: 0, failed: 1, expired: 1, canceled: 0 }]
        ]
      )
      assert.deepStrictEqual(report.days[1]?.platforms["vimeo"], {
        jobs: 4,
        bytes: 1_500,
        byStatus: { queued: 0, processing: 0, completed: 2, failed: 1, expired: 0, canceled: 1 }
      })
      assert.deepStrictEqual(report.topErrors, [
        { code: "download_failed", count: 2, exampleJobIds: [failedB, failedA] },
        { code: "media_unavailable", count: 1, exampleJobIds: [report.topErrors[1]?.exampleJobIds[0] ?? ""] }
      ])

      // A rebuild replays the job stream into a new store and switches to it: the same usage, entry for entry.
      const result = yield* rebuildReadModel("usage", { graceMs: 1_500, progress: quietBar })
      assert.strictEqual(result.previous, USAGE_BUCKET)
      assert.strictEqual(yield* (yield* ReadModelStores).current("usage", USAGE_BUCKET), result.store)
      const rebuilt = yield* eventuallyEffect(
        listLive,
        (all) => JSON.stringify(byDay(all)) === JSON.stringify(byDay(liveUsage)),
        "the rebuilt usage read model",
        WAIT_MS
      )
      assert.deepStrictEqual(byDay(rebuilt), byDay(liveUsage))
    })
  )
})

// A busy project-day on NATS KV: its usage never needs a bigger message as the day grows. Each project's day was one
// document of all its jobs, rewritten whole on every change, that stopped fitting NATS' message size past ~6,000 jobs
// (then every write failed, for every project, forever); here the server takes 32 KiB messages, a day of 600 jobs.
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvUsageReadModel } from "@mds/shared/readmodel/kv/KvUsageReadModel"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { startNatsServer } from "../../support/NatsServer.ts"
import { TestLifetimes } from "../support/TestNats.ts"
import { jobUsage } from "./UsageReadModel.contract.ts"

const JOBS = 600

const smallMessages = Layer.unwrap(
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => startNatsServer({ maxPayloadBytes: 32 * 1024 })),
      (server) => Effect.promise(() => server.close())
    ),
    (server) => NatsClient.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: server.url }))))
  )
)

layer(KvUsageReadModel.layer.pipe(Layer.provide(TestLifetimes), Layer.provide(smallMessages)), { timeout: 120_000 })(
  "usage of a busy day on NATS KV",
  (it) => {
    it.effect(`counts ${JOBS} jobs of one project-day, each queued then completed, with 32 KiB messages`, () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const jobs = Array.from({ length: JOBS }, () => jobUsage(projectId, { platform: "generic" }))
        yield* Effect.forEach(jobs, (job) => store.record(job), { concurrency: 4, discard: true })
        yield* Effect.forEach(jobs, (job) => store.record({ ...job, status: "completed", bytes: 1_000, lastSeq: 2 }), {
          concurrency: 4,
          discard: true
        })
        const [day] = yield* store.listDays(projectId, "2026-11-20", "2026-11-20")
        assert.deepStrictEqual(day?.platforms, {
          generic: { queued: 0, processing: 0, completed: JOBS, failed: 0, expired: 0, canceled: 0, bytes: JOBS * 1_000 }
        })
      })
    )
  }
)

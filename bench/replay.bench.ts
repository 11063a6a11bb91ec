// Benchmark (not a test): projection rebuild rate in events/s on NATS KV, and on MongoDB when one is reachable
// (MONGO_URL, or a container when Docker answers). `npm run bench:replay [-- JOBS]`; prints a table.
import { ConfigProvider, Effect, Layer, Redacted, type Scope } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { type JobEvent, JobEvent as JobEventCodec } from "@mds/shared/domain/job/JobEvent"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvReadModelBackend } from "@mds/shared/readmodel/kv/KvReadModelBackend"
import { MongoDatabase } from "@mds/shared/readmodel/mongo/MongoDatabase"
import { MongoReadModelBackend } from "@mds/shared/readmodel/mongo/MongoReadModelBackend"
import type { ReadModelBackend } from "@mds/shared/readmodel/ReadModelBackend"
import { rebuildReadModel } from "../services/aggregator/src/rebuild/ProjectionRebuild.ts"
import { dockerEngineAvailable } from "../test/support/DockerEngine.ts"
import { startNatsServer } from "../test/support/NatsServer.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

const JOBS = Number(process.argv[2] ?? 2_000)
const T = Date.now()
const eventsOf = (projectId: string, jobId: string): Array<JobEvent> => [
  {
    _tag: "JobQueued",
    v: 1,
    jobId,
    projectId,
    platform: "vimeo",
    format: parseFormatId("video_best"),
    source: { url: "https://vimeo.com/1", mediaId: null },
    createdAt: T,
    expiresAt: T + 3_600_000
  },
  { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "bench", at: T + 1 },
  { _tag: "JobProgressed", v: 1, jobId, percent: 50, at: T + 2 },
  {
    _tag: "JobCompleted",
    v: 1,
    jobId,
    artifact: { key: `p/${jobId}/a.mp4`, filename: "a.mp4", mimeType: "video/mp4", sizeBytes: 1, availableUntil: T + 7_200_000 },
    at: T + 3
  }
]

const server = await startNatsServer()
const nats = NatsClient.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: server.url }))))
const lifetimes = Layer.succeed(Lifetimes, { mediaMs: 3_600_000, jobMs: 3_600_000, downloadUrlMs: 3_600_000, maxConcurrentJobs: 2 })
const base = Layer.mergeAll(nats, lifetimes)
const run = <A, E>(effect: Effect.Effect<A, E, NatsClient | Lifetimes | Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(Effect.provide(effect, base)))

const rows: Array<{ backend: string; events: number; seconds: number; perSecond: number; cpuPerEvent: number }> = []
try {
  process.stderr.write(`appending ${JOBS * 4} events...\n`)
  await run(
    Effect.gen(function* () {
      yield* ensureStreams
      const projectId = newId("prj")
      // As the command handlers append them: each event expecting the job's last sequence (the stream keeps it as a header).
      yield* Effect.flatMap(Effect.service(EventStore), (store) =>
        Effect.forEach(
          Array.from({ length: JOBS }, () => newId("job")),
          (jobId) =>
            Effect.reduce(
              eventsOf(projectId, jobId).entries(),
              () => 0,
              (lastSeq: number, [i, event]) =>
                Effect.map(
                  store.append(JobEventCodec, jobSubject(projectId, jobId), event, { msgId: `${jobId}-${i}`, expectedLastSeq: lastSeq }),
                  (appended) => appended.seq
                )
            ),
          { concurrency: 32, discard: true }
        )
      ).pipe(Effect.provide(JetStreamEventStore))
    })
  )

  const measure = (label: string, backend: Layer.Layer<ReadModelBackend, unknown, NatsClient | Lifetimes>) =>
    run(
      Effect.gen(function* () {
        const started = performance.now()
        const cpuBefore = process.cpuUsage()
        const result = yield* rebuildReadModel("jobs", {
          graceMs: 0,
          progress: () => ({ update: () => undefined, finish: () => undefined })
        })
        const seconds = (performance.now() - started) / 1000
        // This process's CPU (the rebuild, not the server): steadier than the rate on a machine shared with other work.
        const cpu = process.cpuUsage(cpuBefore)
        rows.push({
          backend: label,
          events: result.events,
          seconds,
          perSecond: result.events / seconds,
          cpuPerEvent: (cpu.user + cpu.system) / result.events
        })
      }).pipe(Effect.provide(backend))
    )

  await measure("NATS KV", KvReadModelBackend)

  let mongoUrl = process.env["MONGO_URL"] ?? ""
  let stopMongo = async () => undefined as unknown
  if (mongoUrl === "" && (await dockerEngineAvailable())) {
    const { GenericContainer } = await import("testcontainers")
    const mongo = await new GenericContainer("mongo:8.0").withExposedPorts(27017).start()
    mongoUrl = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/mds_bench`
    stopMongo = () => mongo.stop()
  }
  if (mongoUrl !== "") {
    await measure("MongoDB", MongoReadModelBackend.pipe(Layer.provide(MongoDatabase.layerFromUrl(Redacted.make(mongoUrl)))))
    await stopMongo()
  } else {
    rows.push({ backend: "MongoDB (not measured: no MONGO_URL and no Docker engine)", events: 0, seconds: 0, perSecond: 0, cpuPerEvent: 0 })
  }
} finally {
  await server.close()
}

console.log(`projection rebuild (jobs read model, ${JOBS} jobs x 4 events, ordered consumer, same projection as the aggregator)`)
console.log("| backend | events | seconds | events/s | rebuild CPU µs/event |")
console.log("|---|---:|---:|---:|---:|")
for (const row of rows)
  console.log(
    `| ${row.backend} | ${row.events} | ${row.seconds.toFixed(2)} | ${Math.round(row.perSecond)} | ${row.cpuPerEvent.toFixed(0)} |`
  )

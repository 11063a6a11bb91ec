// Benchmark (not a test): the usage read model as one project's day grows. Per job change, what the usage projection
// writes (UsageReadModel.record on NATS KV; its other step, reading the job's state, does not depend on the day) at
// 1,000, 4,000, 10,000 and 100,000 jobs in one project-day (MDS_BENCH_USAGE_SIZES), against the previous design (one
// document per project and day, rewritten whole); and GET /v1/usage's read (31 days of counters summed into the
// report). `npm run bench -- usage`.
import { ConfigProvider, Effect, Layer, Schema, type Scope } from "effect"
import { Kvm } from "@nats-io/kv"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JobUsage } from "@mds/shared/domain/usage/JobUsage"
import { usageReport } from "@mds/shared/domain/usage/UsageReport"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvUsageReadModel } from "@mds/shared/readmodel/kv/KvUsageReadModel"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { startNatsServer } from "../test/support/NatsServer.ts"
import { median, note, printSeries } from "./support/Report.ts"

const SIZES = (process.env["MDS_BENCH_USAGE_SIZES"] ?? "1000,4000,10000,100000").split(",").map(Number)
/** Job changes timed at each size, one after the other (one subject lane). */
const CHANGES = 1_000
const DAY = "2026-11-20"
/** NATS' default largest message. */
const MAX_PAYLOAD = 1024 * 1024
/** The previous design's bytes per job, measured at the first size. */
let bytesPerJob: number | null = null

const server = await startNatsServer()
const nats = NatsClient.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: server.url }))))
const lifetimes = Layer.succeed(Lifetimes, { mediaMs: 3_600_000, jobMs: 3_600_000, downloadUrlMs: 3_600_000, maxConcurrentJobs: 2 })
const base = Layer.mergeAll(nats, lifetimes)
const run = <A, E>(effect: Effect.Effect<A, E, NatsClient | Lifetimes | UsageReadModel | Scope.Scope>) =>
  Effect.runPromise(Effect.scoped(Effect.provide(effect, KvUsageReadModel.layerWithBucket("bench_usage").pipe(Layer.provideMerge(base)))))

const queued = (projectId: string, jobId: string, day = DAY): JobUsage => ({
  projectId,
  jobId,
  day,
  status: "queued",
  platform: "generic",
  errorCode: null,
  bytes: 0,
  lastSeq: 1
})
const completedOf = (job: JobUsage): JobUsage => ({ ...job, status: "completed", bytes: 1_000_000, lastSeq: 2 })

/** Times each change alone: the median, and changes per second over all of them. */
const timeChanges = <E>(changes: ReadonlyArray<JobUsage>, record: (usage: JobUsage) => Effect.Effect<void, E>) =>
  Effect.gen(function* () {
    const took: Array<number> = []
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    for (const change of changes) {
      const at = performance.now()
      yield* record(change)
      took.push(performance.now() - at)
    }
    const cpu = process.cpuUsage(cpuBefore)
    return {
      medianMs: median(took),
      perSecond: changes.length / ((performance.now() - started) / 1000),
      cpuUs: (cpu.user + cpu.system) / changes.length
    }
  })

/** The previous design, for reference: one document per project and day holding every job's usage, rewritten whole. */
const DayDocument = Schema.fromJsonString(Schema.Struct({ jobs: Schema.Record(Schema.String, JobUsage) }))
const previousDesign = Effect.gen(function* () {
  const { connection } = yield* NatsClient
  const kv = yield* Effect.promise(() => new Kvm(connection).create("bench_usage_previous", { history: 1 }))
  const encode = Schema.encodeSync(DayDocument)
  const decode = Schema.decodeUnknownSync(DayDocument)
  return (usage: JobUsage) =>
    Effect.tryPromise(async () => {
      const key = `${usage.projectId}.${usage.day}`
      const entry = await kv.get(key)
      const jobs = entry === null || entry.operation !== "PUT" ? {} : decode(entry.string()).jobs
      const json = encode({ jobs: { ...jobs, [usage.jobId]: usage } })
      if (entry === null) await kv.create(key, json)
      else await kv.update(key, json, entry.revision)
      return json.length
    })
})

const rows: Array<ReadonlyArray<string | number>> = []
const reads: Array<ReadonlyArray<string | number>> = []
try {
  await run(
    Effect.gen(function* () {
      const store = yield* UsageReadModel
      const previous = yield* previousDesign
      for (const size of SIZES) {
        const projectId = newId("prj")
        const jobs = Array.from({ length: size }, () => queued(projectId, newId("job")))
        note(`filling one project-day with ${size} jobs`)
        const filled = performance.now()
        yield* Effect.forEach(jobs, (job) => store.record(job), { concurrency: 8, discard: true })
        const fillRate = size / ((performance.now() - filled) / 1000)
        const measured = yield* timeChanges(jobs.slice(0, CHANGES).map(completedOf), store.record)
        // The previous design, where its one document fits NATS' 1 MB message limit; past it every write fails.
        const projected = bytesPerJob === null ? 0 : bytesPerJob * size
        let old: string
        if (projected > MAX_PAYLOAD) {
          old = `fails: the day's document would be ${(projected / 1024 / 1024).toFixed(1)} MiB, over NATS' 1 MB message limit`
        } else {
          note(`the previous design at ${size} jobs`)
          const sizes = yield* Effect.forEach(jobs, (job) => previous(job))
          bytesPerJob = (sizes.at(-1) ?? 0) / size
          const timed = yield* timeChanges(jobs.slice(0, CHANGES).map(completedOf), (change) => Effect.asVoid(previous(change)))
          old = `${Math.round(timed.perSecond)}/s, ${timed.medianMs.toFixed(2)} ms (document ${Math.round((sizes.at(-1) ?? 0) / 1024)} KiB)`
        }
        rows.push([size, Math.round(fillRate), Math.round(measured.perSecond), measured.medianMs, Math.round(measured.cpuUs), old])
        // GET /v1/usage reads the range's counters and sums them: 31 days ending on this busy day, 50 times.
        const took: Array<number> = []
        for (let i = 0; i < 50; i++) {
          const at = performance.now()
          const days = yield* store.listDays(projectId, "2026-10-21", DAY)
          usageReport("2026-10-21", DAY, days)
          took.push(performance.now() - at)
        }
        reads.push([size, median(took), Math.max(...took)])
      }
    })
  )
} finally {
  await server.close()
}

printSeries(
  `usage projection's write per job change, one project-day (NATS KV, ${CHANGES} changes queued -> completed at each size, one after the other)`,
  [
    "jobs in the day",
    "fill (8 at once), changes/s",
    "changes/s",
    "median ms/change",
    "CPU µs/change (bench process)",
    "previous design (one document per day)"
  ],
  rows
)
printSeries(
  "GET /v1/usage's read: 31 days of counters listed and summed (median of 50)",
  ["jobs in the busiest day", "median ms", "max ms"],
  reads
)

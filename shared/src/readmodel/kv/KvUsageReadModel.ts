// UsageReadModel on NATS KV: bucket mds_usage, <projectId>.<day> -> the usage of that day's jobs, by job id.
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Schema } from "effect"
import { daysBetween } from "../../domain/usage/UsageReport.ts"
import { JobUsage } from "../../domain/usage/JobUsage.ts"
import { UsageReadModel } from "../UsageReadModel.ts"
import { openKvBucket, readModelError } from "./KvBucket.ts"

export const USAGE_BUCKET = "mds_usage"

/**
 * One document per project and day: a month's report is about 30 reads. A job's entry is about 150 bytes of JSON, so
 * a day holds some 6,000 jobs of one project within NATS' default 1 MB message size (docs/operations.md).
 */
const UsageDayDocument = Schema.Struct({ jobs: Schema.Record(Schema.String, JobUsage) })
const DayJson = Schema.fromJsonString(UsageDayDocument)
const decodeDay = Schema.decodeUnknownEffect(DayJson)
const encodeDay = Schema.encodeEffect(DayJson)

const dayKey = (projectId: string, day: string) => `${projectId}.${day}`

/**
 * Compare-and-set conflicts (other lanes writing jobs of the same day) before the write fails and its message is
 * delivered again.
 */
const ATTEMPTS = 30

const tryKv = <A>(operation: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: readModelError(operation) })

const readDay = (kv: KV, key: string) =>
  Effect.gen(function* () {
    const entry = yield* tryKv(`get ${key}`, () => kv.get(key))
    if (entry === null || entry.operation !== "PUT") return { revision: null, jobs: {} as Record<string, JobUsage> }
    const doc = yield* decodeDay(entry.string()).pipe(Effect.mapError(readModelError(`decode ${key}`)))
    return { revision: entry.revision, jobs: doc.jobs }
  })

export const makeKvUsageReadModel = Effect.fn("makeKvUsageReadModel")(function* (bucket: string) {
  // Usage is history: kept for good, like the job events it is made of.
  const kv = yield* openKvBucket(bucket, 0)

  const record = Effect.fn("KvUsageReadModel.record")(function* (usage: JobUsage) {
    const key = dayKey(usage.projectId, usage.day)
    for (let attempt = 1; ; attempt++) {
      const day = yield* readDay(kv, key)
      if ((day.jobs[usage.jobId]?.lastSeq ?? -1) > usage.lastSeq) return
      const json = yield* encodeDay({ jobs: { ...day.jobs, [usage.jobId]: usage } }).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      const written = yield* Effect.tryPromise({
        try: () => (day.revision === null ? kv.create(key, json) : kv.update(key, json, day.revision)),
        catch: readModelError(`put ${key}`)
      }).pipe(
        Effect.as(true),
        Effect.catchIf(
          () => attempt < ATTEMPTS,
          () => Effect.succeed(false)
        )
      )
      if (written) return
    }
  })

  return UsageReadModel.of({
    record,
    listDays: Effect.fn("KvUsageReadModel.listDays")(function* (projectId, fromDay, toDay) {
      const days = yield* Effect.forEach(daysBetween(fromDay, toDay), (day) => readDay(kv, dayKey(projectId, day)), { concurrency: 8 })
      return days.flatMap((day) => Object.values(day.jobs))
    })
  })
})

export const KvUsageReadModel = {
  layer: Layer.effect(UsageReadModel, makeKvUsageReadModel(USAGE_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(UsageReadModel, makeKvUsageReadModel(bucket))
}

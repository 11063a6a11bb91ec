// UsageReadModel on NATS KV: bucket mds_usage, `day.<projectId>.<day>` -> the day's counters, `job.<projectId>.<jobId>` ->
// the job's usage as they hold it; every write a compare-and-set on the key's revision (CountedUsage.ts).
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Schema } from "effect"
import { JobUsage } from "../../domain/usage/JobUsage.ts"
import { daysBetween } from "../../domain/usage/UsageReport.ts"
import { countedUsage, UsageDayDocument, type UsageDocuments, type Versioned } from "../CountedUsage.ts"
import { UsageReadModel } from "../UsageReadModel.ts"
import { openKvBucket, readModelError } from "./KvBucket.ts"

export const USAGE_BUCKET = "mds_usage"

const dayKey = (projectId: string, day: string) => `day.${projectId}.${day}`
const jobKey = (projectId: string, jobId: string) => `job.${projectId}.${jobId}`

/** The entry's revision was not the one expected (or the key was created meanwhile). */
const isChanged = (cause: unknown) =>
  cause instanceof JetStreamApiError &&
  (cause.code === JetStreamApiCodes.StreamWrongLastSequence || cause.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)

/** One kind of document of the bucket, read with its revision and written over it. */
const documentsOf = <A>(kv: KV, schema: Schema.Codec<A, unknown>) => {
  const Json = Schema.fromJsonString(schema)
  const decode = Schema.decodeUnknownEffect(Json)
  const encode = Schema.encodeEffect(Json)
  const get = (key: string) =>
    Effect.gen(function* () {
      const entry = yield* Effect.tryPromise({ try: () => kv.get(key), catch: readModelError(`get ${key}`) })
      if (entry === null || entry.operation !== "PUT") return null
      const value = yield* decode(entry.string()).pipe(Effect.mapError(readModelError(`decode ${key}`)))
      return { value, version: entry.revision } satisfies Versioned<A>
    })
  const put = (key: string, value: A, expected: number | null) =>
    Effect.gen(function* () {
      const json = yield* encode(value).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      return yield* Effect.tryPromise({
        try: () =>
          (expected === null ? kv.create(key, json) : kv.update(key, json, expected)).catch((cause: unknown) => {
            if (isChanged(cause)) return null
            throw cause
          }),
        catch: readModelError(`put ${key}`)
      })
    })
  return { get, put }
}

export const makeKvUsageReadModel = Effect.fn("makeKvUsageReadModel")(function* (bucket: string) {
  // Usage is history: kept for good, like the job events it is made of.
  const kv = yield* openKvBucket(bucket, 0)
  const days = documentsOf(kv, UsageDayDocument)
  const jobs = documentsOf(kv, JobUsage)
  const documents: UsageDocuments = {
    getDay: (projectId, day) => days.get(dayKey(projectId, day)),
    putDay: (doc, expected) => days.put(dayKey(doc.projectId, doc.day), doc, expected),
    getJob: (projectId, jobId) => jobs.get(jobKey(projectId, jobId)),
    putJob: (usage, expected) => jobs.put(jobKey(usage.projectId, usage.jobId), usage, expected),
    // One read per day of the range (at most 92, GET /v1/usage's bound), each a document bounded by platforms and codes.
    listDays: (projectId, fromDay, toDay) =>
      Effect.map(
        Effect.forEach(daysBetween(fromDay, toDay), (day) => days.get(dayKey(projectId, day)), { concurrency: 8 }),
        (found) => found.flatMap((entry) => (entry === null ? [] : [entry.value]))
      )
  }
  return countedUsage(documents)
})

export const KvUsageReadModel = {
  layer: Layer.effect(UsageReadModel, makeKvUsageReadModel(USAGE_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(UsageReadModel, makeKvUsageReadModel(bucket))
}

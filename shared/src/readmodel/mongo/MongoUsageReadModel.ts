// UsageReadModel on MongoDB: collection `usage`, one document per project and day (`day:<projectId>:<day>`, its
// counters) and one per job (`job:<projectId>:<jobId>`, its usage as they hold it), each written only over its
// `version` (CountedUsage.ts).
import type { Collection, Filter } from "mongodb"
import { Effect, Layer, Schema } from "effect"
import { JobUsage } from "../../domain/usage/JobUsage.ts"
import { countedUsage, UsageDayDocument, type UsageDocuments, type Versioned } from "../CountedUsage.ts"
import { UsageReadModel } from "../UsageReadModel.ts"
import { findById, isDuplicateKey, MongoDatabase, mongoError } from "./MongoDatabase.ts"

export const USAGE_COLLECTION = "usage"

interface StoredUsage extends Record<string, unknown> {
  _id: string
  kind: "day" | "job"
  version: number
}

/** One kind of document of the collection, read with its version and written over it. */
const documentsOf = <A extends object>(
  collection: Collection<StoredUsage>,
  kind: StoredUsage["kind"],
  schema: Schema.Codec<A, unknown>
) => {
  const decode = Schema.decodeUnknownEffect(schema)
  const encode = Schema.encodeEffect(schema)
  const get = (_id: string) =>
    Effect.gen(function* () {
      const stored = yield* findById(collection, _id)
      if (stored === null) return null
      const { _id: _key, kind: _kind, version, ...fields } = stored
      const value = yield* decode(fields).pipe(Effect.mapError(mongoError(`decode ${_id}`)))
      return { value, version } satisfies Versioned<A>
    })
  const put = (_id: string, value: A, expected: number | null) =>
    Effect.gen(function* () {
      const fields = (yield* encode(value).pipe(Effect.mapError(mongoError(`encode ${_id}`)))) as Record<string, unknown>
      return yield* Effect.tryPromise({
        try: async () => {
          if (expected === null) {
            // Taken meanwhile by another writer: E11000, a conflict like any other.
            return collection.insertOne({ ...fields, _id, kind, version: 1 }).then(
              () => 1,
              (cause: unknown) => {
                if (isDuplicateKey(cause)) return null
                throw cause
              }
            )
          }
          const replaced = await collection.replaceOne({ _id, version: expected } as Filter<StoredUsage>, {
            ...fields,
            _id,
            kind,
            version: expected + 1
          })
          return replaced.matchedCount === 1 ? expected + 1 : null
        },
        catch: mongoError(`put ${_id}`)
      })
    })
  return { get, put }
}

export const makeMongoUsageReadModel = Effect.fn("makeMongoUsageReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  // Usage is history, kept for good: no TTL index.
  const collection = db.collection<StoredUsage>(collectionName)
  yield* Effect.tryPromise({
    try: () => collection.createIndexes([{ key: { kind: 1, projectId: 1, day: 1 }, name: "usage_days" }]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })
  const days = documentsOf(collection, "day", UsageDayDocument)
  const jobs = documentsOf(collection, "job", JobUsage)
  const decodeDay = Schema.decodeUnknownEffect(UsageDayDocument)
  const documents: UsageDocuments = {
    getDay: (projectId, day) => days.get(`day:${projectId}:${day}`),
    putDay: (doc, expected) => days.put(`day:${doc.projectId}:${doc.day}`, doc, expected),
    getJob: (projectId, jobId) => jobs.get(`job:${projectId}:${jobId}`),
    putJob: (usage, expected) => jobs.put(`job:${usage.projectId}:${usage.jobId}`, usage, expected),
    // At most one document per day of the range (92 for GET /v1/usage), found by the index.
    listDays: Effect.fn("MongoUsageReadModel.listDays")(function* (projectId, fromDay, toDay) {
      const found = yield* Effect.tryPromise({
        try: () => collection.find({ kind: "day", projectId, day: { $gte: fromDay, $lte: toDay } } as Filter<StoredUsage>).toArray(),
        catch: mongoError(`list usage of ${projectId}`)
      })
      return yield* Effect.forEach(found, ({ _id, kind: _kind, version: _version, ...fields }) =>
        decodeDay(fields).pipe(Effect.mapError(mongoError(`decode ${_id}`)))
      )
    })
  }
  return countedUsage(documents)
})

export const MongoUsageReadModel = {
  layer: Layer.effect(UsageReadModel, makeMongoUsageReadModel(USAGE_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(UsageReadModel, makeMongoUsageReadModel(collection))
}

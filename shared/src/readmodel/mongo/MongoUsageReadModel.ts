// UsageReadModel on MongoDB: collection `usage`, one document per job (_id <projectId>:<jobId>), indexed by project and day.
import type { Collection } from "mongodb"
import { Effect, Layer, Schema } from "effect"
import { JobUsage } from "../../domain/usage/JobUsage.ts"
import { setUnlessLater, type SequencedDocument } from "./MongoConditionalWrite.ts"
import { MongoDatabase, mongoError } from "./MongoDatabase.ts"
import { UsageReadModel } from "../UsageReadModel.ts"

export const USAGE_COLLECTION = "usage"

const decodeUsage = Schema.decodeUnknownEffect(JobUsage)
const encodeUsage = Schema.encodeEffect(JobUsage)

export const makeMongoUsageReadModel = Effect.fn("makeMongoUsageReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  // Usage is history, kept for good: no TTL index.
  const usage: Collection<SequencedDocument> = db.collection<SequencedDocument>(collectionName)
  yield* Effect.tryPromise({
    try: () => usage.createIndexes([{ key: { projectId: 1, day: 1 }, name: "project_days" }]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  return UsageReadModel.of({
    record: Effect.fn("MongoUsageReadModel.record")(function* (job) {
      const fields = yield* encodeUsage(job).pipe(Effect.mapError(mongoError(`encode ${job.jobId}`)))
      yield* Effect.tryPromise({
        try: () => setUnlessLater(usage, `${job.projectId}:${job.jobId}`, fields, job.lastSeq),
        catch: mongoError(`put ${job.jobId}`)
      })
    }),
    listDays: Effect.fn("MongoUsageReadModel.listDays")(function* (projectId, fromDay, toDay) {
      const docs = yield* Effect.tryPromise({
        try: () => usage.find({ projectId, day: { $gte: fromDay, $lte: toDay } }).toArray(),
        catch: mongoError(`list usage of ${projectId}`)
      })
      return yield* Effect.forEach(docs, ({ _id, ...fields }) => decodeUsage(fields).pipe(Effect.mapError(mongoError(`decode ${_id}`))))
    })
  })
})

export const MongoUsageReadModel = {
  layer: Layer.effect(UsageReadModel, makeMongoUsageReadModel(USAGE_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(UsageReadModel, makeMongoUsageReadModel(collection))
}

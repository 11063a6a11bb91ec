// KeyReadModel on MongoDB: collection `keys`, _id <projectId>.<keyId>, the KeyRecord's fields plus lastUsedAt.
import type { Collection } from "mongodb"
import { Effect, Layer, Option, Schema } from "effect"
import { KeyRecord, type KeyView } from "../../domain/account/AccountViews.ts"
import { KeyReadModel } from "../KeyReadModel.ts"
import { setUnlessLater, type SequencedDocument } from "./MongoConditionalWrite.ts"
import { findById, isDuplicateKey, MongoDatabase, mongoError } from "./MongoDatabase.ts"

export const KEYS_COLLECTION = "keys"

const decodeRecord = Schema.decodeUnknownEffect(KeyRecord)
const encodeRecord = Schema.encodeEffect(KeyRecord)
const decodeLastUsed = Schema.decodeUnknownEffect(Schema.NullOr(Schema.Number))
const idOf = (projectId: string, keyId: string) => `${projectId}.${keyId}`

/** A document that so far holds only a last-used time (usage may arrive before the key) is no key yet. */
const toView = (doc: SequencedDocument | null) => {
  if (doc === null || doc["lastSeq"] === undefined) return Effect.succeed(Option.none<KeyView>())
  const { _id, lastUsedAt, ...fields } = doc
  return Effect.all([decodeRecord(fields), decodeLastUsed(lastUsedAt ?? null)]).pipe(
    Effect.map(([record, used]): Option.Option<KeyView> => Option.some({ ...record, lastUsedAt: used })),
    Effect.mapError(mongoError(`decode ${_id}`))
  )
}

export const makeMongoKeyReadModel = Effect.fn("makeMongoKeyReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  // Keys live as long as their events (kept for good): no TTL index.
  const keys: Collection<SequencedDocument> = db.collection<SequencedDocument>(collectionName)
  yield* Effect.tryPromise({
    // listByProject: one project's keys newest first, with the same tie-break as the other adapters.
    try: () => keys.createIndexes([{ key: { projectId: 1, createdAt: -1, keyId: -1 }, name: "project_newest_first" }]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  return KeyReadModel.of({
    get: (projectId, keyId) => findById(keys, idOf(projectId, keyId)).pipe(Effect.flatMap(toView)),

    put: Effect.fn("MongoKeyReadModel.put")(function* (record) {
      const _id = idOf(record.projectId, record.keyId)
      const fields = yield* encodeRecord(record).pipe(Effect.mapError(mongoError(`encode ${_id}`)))
      yield* Effect.tryPromise({ try: () => setUnlessLater(keys, _id, fields, record.lastSeq), catch: mongoError(`put ${_id}`) })
    }),

    // One atomic $max: concurrent writers can never lower the time, and no read comes first.
    recordUse: (projectId, keyId, at) =>
      Effect.tryPromise({
        try: async () => {
          const use = () => keys.updateOne({ _id: idOf(projectId, keyId) }, { $max: { lastUsedAt: at } }, { upsert: true })
          // Two first uses upserting at once: the server retries an _id-equality upsert itself (4.2+); this covers older ones.
          await use().catch((cause) => (isDuplicateKey(cause) ? use() : Promise.reject(cause)))
        },
        catch: mongoError(`record use ${idOf(projectId, keyId)}`)
      }),

    listByProject: Effect.fn("MongoKeyReadModel.listByProject")(function* (projectId) {
      const docs = yield* Effect.tryPromise({
        try: () => keys.find({ projectId }).sort({ createdAt: -1, keyId: -1 }).toArray(),
        catch: mongoError(`list keys of ${projectId}`)
      })
      const views = yield* Effect.forEach(docs, toView)
      return views.flatMap((view) => (Option.isSome(view) ? [view.value] : []))
    })
  })
})

export const MongoKeyReadModel = {
  layer: Layer.effect(KeyReadModel, makeMongoKeyReadModel(KEYS_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(KeyReadModel, makeMongoKeyReadModel(collection))
}

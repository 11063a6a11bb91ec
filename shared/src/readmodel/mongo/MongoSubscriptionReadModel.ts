// SubscriptionReadModel on MongoDB: collection `subscriptions`, _id <projectId>.<subscriptionId>, the view's fields; indexed by project.
import type { Collection } from "mongodb"
import { Effect, Layer, Option, Schema } from "effect"
import { liveOfView, SubscriptionListView } from "../../domain/subscription/SubscriptionListView.ts"
import { SubscriptionReadModel } from "../SubscriptionReadModel.ts"
import { setUnlessLater, type SequencedDocument } from "./MongoConditionalWrite.ts"
import { findById, MongoDatabase, mongoError } from "./MongoDatabase.ts"

export const SUBSCRIPTIONS_COLLECTION = "subscriptions"

const decodeView = Schema.decodeUnknownEffect(SubscriptionListView)
const encodeView = Schema.encodeEffect(SubscriptionListView)
const idOf = (projectId: string, subscriptionId: string) => `${projectId}.${subscriptionId}`

const toView = ({ _id, ...fields }: SequencedDocument) => decodeView(fields).pipe(Effect.mapError(mongoError(`decode ${_id}`)))

export const makeMongoSubscriptionReadModel = Effect.fn("makeMongoSubscriptionReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  // Subscriptions live until removed, and their events are kept for good: no TTL index.
  const subscriptions: Collection<SequencedDocument> = db.collection<SequencedDocument>(collectionName)
  yield* Effect.tryPromise({
    try: () =>
      subscriptions.createIndexes([
        { key: { projectId: 1, createdAt: 1 }, name: "project_subscriptions" },
        { key: { removed: 1 }, name: "live_subscriptions" }
      ]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  return SubscriptionReadModel.of({
    get: (projectId, subscriptionId) =>
      findById(subscriptions, idOf(projectId, subscriptionId)).pipe(
        Effect.flatMap((doc) => (doc === null ? Effect.succeed(Option.none<SubscriptionListView>()) : Effect.map(toView(doc), Option.some)))
      ),

    put: Effect.fn("MongoSubscriptionReadModel.put")(function* (view) {
      const _id = idOf(view.projectId, view.subscriptionId)
      const fields = yield* encodeView(view).pipe(Effect.mapError(mongoError(`encode ${_id}`)))
      yield* Effect.tryPromise({ try: () => setUnlessLater(subscriptions, _id, fields, view.lastSeq), catch: mongoError(`put ${_id}`) })
    }),

    listByProject: Effect.fn("MongoSubscriptionReadModel.listByProject")(function* (projectId) {
      const docs = yield* Effect.tryPromise({
        try: () => subscriptions.find({ projectId }).toArray(),
        catch: mongoError(`list subscriptions of ${projectId}`)
      })
      return yield* Effect.forEach(docs, toView)
    }),

    listLive: Effect.fn("MongoSubscriptionReadModel.listLive")(function* () {
      const docs = yield* Effect.tryPromise({
        // The row needs neither the seen digests, the given-up entries nor the library: left at the server.
        try: () => subscriptions.find({ removed: false }, { projection: { seen: 0, lastGivenUp: 0, plan: 0, library: 0 } }).toArray(),
        catch: mongoError("list live subscriptions")
      })
      const views = yield* Effect.forEach(docs, toView)
      return views.flatMap((view) => {
        const live = liveOfView(view)
        return live === null ? [] : [live]
      })
    })
  })
})

export const MongoSubscriptionReadModel = {
  layer: Layer.effect(SubscriptionReadModel, makeMongoSubscriptionReadModel(SUBSCRIPTIONS_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(SubscriptionReadModel, makeMongoSubscriptionReadModel(collection))
}

// ReadModelStores on MongoDB: collection `readmodels` maps a read model's name to the collection that holds it.
import { Effect, Layer } from "effect"
import { MongoServerError } from "mongodb"
import { MongoDatabase, mongoError } from "./MongoDatabase.ts"
import { ReadModelStores } from "../ReadModelStores.ts"

export const READ_MODEL_STORES_COLLECTION = "readmodels"

interface PointerDocument {
  _id: string
  store: string
}

/** Code 26 (NamespaceNotFound): the collection to drop is not there. */
const isMissingCollection = (cause: unknown) => cause instanceof MongoServerError && cause.code === 26

export const makeMongoReadModelStores = Effect.fn("makeMongoReadModelStores")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  const pointers = db.collection<PointerDocument>(collectionName)
  return ReadModelStores.of({
    current: (readModel, fallback) =>
      Effect.tryPromise({ try: () => pointers.findOne({ _id: readModel }), catch: mongoError(`get pointer ${readModel}`) }).pipe(
        Effect.map((doc) => doc?.store ?? fallback)
      ),
    switchTo: (readModel, store, fallback) =>
      Effect.tryPromise({
        try: () => pointers.findOneAndUpdate({ _id: readModel }, { $set: { store } }, { upsert: true, returnDocument: "before" }),
        catch: mongoError(`switch ${readModel}`)
      }).pipe(Effect.map((before) => before?.store ?? fallback)),
    drop: (store) =>
      Effect.tryPromise({
        try: () =>
          db.dropCollection(store).then(
            () => undefined,
            (cause) => (isMissingCollection(cause) ? undefined : Promise.reject(cause))
          ),
        catch: mongoError(`drop collection ${store}`)
      })
  })
})

export const MongoReadModelStores = {
  layer: Layer.effect(ReadModelStores, makeMongoReadModelStores(READ_MODEL_STORES_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(ReadModelStores, makeMongoReadModelStores(collection))
}

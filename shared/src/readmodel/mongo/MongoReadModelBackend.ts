// The MongoDB read-model backend (the production topology), in its own module so that the embedded default (NATS KV)
// never loads the MongoDB driver (about 10 MB of heap per process): ReadModelLayer imports it only when MONGO_URL is set.
import { Effect, Layer } from "effect"
import type { Lifetimes } from "../../config/Lifetimes.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { JOBS_COLLECTION, makeMongoJobReadModel } from "./MongoJobReadModel.ts"
import { KEYS_COLLECTION, makeMongoKeyReadModel } from "./MongoKeyReadModel.ts"
import { makeMongoMediaReadModel, MEDIA_COLLECTION } from "./MongoMediaReadModel.ts"
import { makeMongoProjectReadModel, PROJECTS_COLLECTION } from "./MongoProjectReadModel.ts"
import { makeMongoReadModelStores, READ_MODEL_STORES_COLLECTION } from "./MongoReadModelStores.ts"
import { ReadModelBackend } from "../ReadModelBackend.ts"
import { makeMongoUsageReadModel, USAGE_COLLECTION } from "./MongoUsageReadModel.ts"
import { makeMongoSubscriptionReadModel, SUBSCRIPTIONS_COLLECTION } from "./MongoSubscriptionReadModel.ts"

/** MongoDB collections. Needs MongoDatabase and Lifetimes. */
export const MongoReadModelBackend = Layer.effect(
  ReadModelBackend,
  Effect.gen(function* () {
    const context = yield* Effect.context<MongoDatabase | Lifetimes>()
    return ReadModelBackend.of({
      kind: "mongo",
      stores: yield* makeMongoReadModelStores(READ_MODEL_STORES_COLLECTION),
      defaults: {
        jobs: JOBS_COLLECTION,
        media: MEDIA_COLLECTION,
        projects: PROJECTS_COLLECTION,
        keys: KEYS_COLLECTION,
        usage: USAGE_COLLECTION,
        subscriptions: SUBSCRIPTIONS_COLLECTION
      },
      openJobs: (store) => Effect.provideContext(makeMongoJobReadModel(store), context),
      openMedia: (store) => Effect.provideContext(makeMongoMediaReadModel(store), context),
      openProjects: (store) => Effect.provideContext(makeMongoProjectReadModel(store), context),
      openKeys: (store) => Effect.provideContext(makeMongoKeyReadModel(store), context),
      openUsage: (store) => Effect.provideContext(makeMongoUsageReadModel(store), context),
      openSubscriptions: (store) => Effect.provideContext(makeMongoSubscriptionReadModel(store), context)
    })
  })
)

/** The backend on the database MONGO_URL names. Needs Lifetimes. */
export const MongoReadModelBackendFromConfig = MongoReadModelBackend.pipe(Layer.provide(MongoDatabase.layer))

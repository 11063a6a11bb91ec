// Chooses the read-model adapters in one place: MongoDB when MONGO_URL is set, NATS KV (the embedded default) otherwise.
import { Config, Effect, Layer, Option } from "effect"
import { followStore } from "./FollowedStore.ts"
import { JobReadModel } from "./JobReadModel.ts"
import { JOBS_BUCKET, makeKvJobReadModel } from "./KvJobReadModel.ts"
import { makeKvMediaReadModel, MEDIA_BUCKET } from "./KvMediaReadModel.ts"
import { KvReadModelStores } from "./KvReadModelStores.ts"
import { MediaReadModel } from "./MediaReadModel.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { JOBS_COLLECTION, makeMongoJobReadModel } from "./MongoJobReadModel.ts"
import { makeMongoMediaReadModel, MEDIA_COLLECTION } from "./MongoMediaReadModel.ts"
import { MongoReadModelStores } from "./MongoReadModelStores.ts"

export type ReadModelBackendKind = "kv" | "mongo"

/** Each read model's logical name and its default store per backend; a rebuild creates `<default>_r<time>` beside it. */
export const READ_MODELS = {
  jobs: { kv: JOBS_BUCKET, mongo: JOBS_COLLECTION },
  media: { kv: MEDIA_BUCKET, mongo: MEDIA_COLLECTION }
} as const
export type ReadModelName = keyof typeof READ_MODELS

/** Both read models on NATS KV, each following its pointer in mds_readmodels. Needs NatsClient and Lifetimes. */
export const KvReadModels = Layer.mergeAll(
  Layer.effect(JobReadModel, followStore({ readModel: "jobs", fallback: READ_MODELS.jobs.kv, open: makeKvJobReadModel })),
  Layer.effect(MediaReadModel, followStore({ readModel: "media", fallback: READ_MODELS.media.kv, open: makeKvMediaReadModel }))
).pipe(Layer.provideMerge(KvReadModelStores.layer))

/** Both read models on MongoDB, each following its pointer in the `readmodels` collection. Needs MongoDatabase and Lifetimes. */
export const MongoReadModels = Layer.mergeAll(
  Layer.effect(JobReadModel, followStore({ readModel: "jobs", fallback: READ_MODELS.jobs.mongo, open: makeMongoJobReadModel })),
  Layer.effect(MediaReadModel, followStore({ readModel: "media", fallback: READ_MODELS.media.mongo, open: makeMongoMediaReadModel }))
).pipe(Layer.provideMerge(MongoReadModelStores.layer))

/** Which backend the configuration selects. */
export const readModelBackend = Config.option(MongoDatabase.config).pipe(
  Config.map((url): ReadModelBackendKind => (Option.isSome(url) ? "mongo" : "kv"))
)

/**
 * The read models every service uses: MongoDB (the production topology) when MONGO_URL is set, NATS KV otherwise.
 * KV needs NatsClient and Lifetimes; MongoDB needs Lifetimes and connects itself.
 */
export const ReadModelLayer = Layer.unwrap(
  Effect.map(Config.option(MongoDatabase.config), (url) =>
    Option.isSome(url)
      ? MongoReadModels.pipe(Layer.provide(MongoDatabase.layerFromUrl(url.value)))
      : KvReadModels)
)

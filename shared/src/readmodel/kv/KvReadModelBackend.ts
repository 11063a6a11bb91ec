// The NATS KV read-model backend (the embedded default): its buckets, the store pointers' bucket, and how to open each
// read model on a given bucket.
import { Effect, Layer } from "effect"
import type { Lifetimes } from "../../config/Lifetimes.ts"
import type { NatsClient } from "../../nats/NatsClient.ts"
import { ReadModelBackend } from "../ReadModelBackend.ts"
import { JOBS_BUCKET, makeKvJobReadModel } from "./KvJobReadModel.ts"
import { KEYS_BUCKET, makeKvKeyReadModel } from "./KvKeyReadModel.ts"
import { makeKvMediaReadModel, MEDIA_BUCKET } from "./KvMediaReadModel.ts"
import { makeKvProjectReadModel, PROJECTS_BUCKET } from "./KvProjectReadModel.ts"
import { makeKvReadModelStores, READ_MODEL_STORES_BUCKET } from "./KvReadModelStores.ts"
import { makeKvSubscriptionReadModel, SUBSCRIPTIONS_BUCKET } from "./KvSubscriptionReadModel.ts"
import { makeKvUsageReadModel, USAGE_BUCKET } from "./KvUsageReadModel.ts"

/** NATS KV buckets. Needs NatsClient and Lifetimes. */
export const KvReadModelBackend = Layer.effect(
  ReadModelBackend,
  Effect.gen(function* () {
    const context = yield* Effect.context<NatsClient | Lifetimes>()
    return ReadModelBackend.of({
      kind: "kv",
      stores: yield* makeKvReadModelStores(READ_MODEL_STORES_BUCKET),
      defaults: {
        jobs: JOBS_BUCKET,
        media: MEDIA_BUCKET,
        projects: PROJECTS_BUCKET,
        keys: KEYS_BUCKET,
        usage: USAGE_BUCKET,
        subscriptions: SUBSCRIPTIONS_BUCKET
      },
      openJobs: (store) => Effect.provideContext(makeKvJobReadModel(store), context),
      openMedia: (store) => Effect.provideContext(makeKvMediaReadModel(store), context),
      openProjects: (store) => Effect.provideContext(makeKvProjectReadModel(store), context),
      openKeys: (store) => Effect.provideContext(makeKvKeyReadModel(store), context),
      openUsage: (store) => Effect.provideContext(makeKvUsageReadModel(store), context),
      openSubscriptions: (store) => Effect.provideContext(makeKvSubscriptionReadModel(store), context)
    })
  })
)

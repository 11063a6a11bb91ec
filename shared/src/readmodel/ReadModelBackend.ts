// One read-model backend (NATS KV or MongoDB): its store pointers and how to open each read model on a given store.
import { Context, Effect, Layer } from "effect"
import type { Lifetimes } from "../config/Lifetimes.ts"
import type { NatsClient } from "../nats/NatsClient.ts"
import type { JobReadModel } from "./JobReadModel.ts"
import type { KeyReadModel } from "./KeyReadModel.ts"
import { JOBS_BUCKET, makeKvJobReadModel } from "./kv/KvJobReadModel.ts"
import { KEYS_BUCKET, makeKvKeyReadModel } from "./kv/KvKeyReadModel.ts"
import { makeKvMediaReadModel, MEDIA_BUCKET } from "./kv/KvMediaReadModel.ts"
import { makeKvProjectReadModel, PROJECTS_BUCKET } from "./kv/KvProjectReadModel.ts"
import { makeKvReadModelStores, READ_MODEL_STORES_BUCKET } from "./kv/KvReadModelStores.ts"
import type { MediaReadModel } from "./MediaReadModel.ts"
import type { ProjectReadModel } from "./ProjectReadModel.ts"
import type { ReadModelError } from "./ReadModelError.ts"
import type { ReadModelStores } from "./ReadModelStores.ts"
import { makeKvUsageReadModel, USAGE_BUCKET } from "./kv/KvUsageReadModel.ts"
import type { UsageReadModel } from "./UsageReadModel.ts"
import { makeKvSubscriptionReadModel, SUBSCRIPTIONS_BUCKET } from "./kv/KvSubscriptionReadModel.ts"
import type { SubscriptionReadModel } from "./SubscriptionReadModel.ts"

export type ReadModelBackendKind = "kv" | "mongo"

/** The read models by logical name; adding one means a name here and an `open` per backend below. */
export type ReadModelName = "jobs" | "media" | "projects" | "keys" | "usage" | "subscriptions"
export const READ_MODEL_NAMES: ReadonlyArray<ReadModelName> = ["jobs", "media", "projects", "keys", "usage", "subscriptions"]

export interface ReadModelBackendShape {
  readonly kind: ReadModelBackendKind
  readonly stores: ReadModelStores["Service"]
  /** Each read model's default store (bucket or collection) on this backend; rebuilds create `<default>_r<time>`. */
  readonly defaults: Readonly<Record<ReadModelName, string>>
  openJobs(store: string): Effect.Effect<JobReadModel["Service"], ReadModelError>
  openMedia(store: string): Effect.Effect<MediaReadModel["Service"], ReadModelError>
  openProjects(store: string): Effect.Effect<ProjectReadModel["Service"], ReadModelError>
  openKeys(store: string): Effect.Effect<KeyReadModel["Service"], ReadModelError>
  openUsage(store: string): Effect.Effect<UsageReadModel["Service"], ReadModelError>
  openSubscriptions(store: string): Effect.Effect<SubscriptionReadModel["Service"], ReadModelError>
}

/** MongoDB collections (the production topology) are MongoReadModelBackend.ts, loaded only when configured. */
export class ReadModelBackend extends Context.Service<ReadModelBackend, ReadModelBackendShape>()("mds/readmodel/ReadModelBackend") {
  /** NATS KV buckets (the embedded default). */
  static readonly kv = Layer.effect(
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
}

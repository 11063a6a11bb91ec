// One read-model backend (NATS KV or MongoDB): its store pointers and how to open each read model on a given store.
import { Context, type Effect } from "effect"
import type { JobReadModel } from "./JobReadModel.ts"
import type { KeyReadModel } from "./KeyReadModel.ts"
import type { MediaReadModel } from "./MediaReadModel.ts"
import type { ProjectReadModel } from "./ProjectReadModel.ts"
import type { ReadModelError } from "./ReadModelError.ts"
import type { ReadModelStores } from "./ReadModelStores.ts"
import type { SubscriptionReadModel } from "./SubscriptionReadModel.ts"
import type { UsageReadModel } from "./UsageReadModel.ts"

export type ReadModelBackendKind = "kv" | "mongo"

/** The read models by logical name; adding one means a name here and an `open` in each backend's adapter. */
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

/**
 * Its adapters: NATS KV buckets (kv/KvReadModelBackend.ts) and MongoDB collections
 * (mongo/MongoReadModelBackend.ts, loaded only when configured).
 */
export class ReadModelBackend extends Context.Service<ReadModelBackend, ReadModelBackendShape>()("mds/readmodel/ReadModelBackend") {}

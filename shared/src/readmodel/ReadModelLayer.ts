// Chooses the read-model backend in one place: MongoDB when MONGO_URL is set, NATS KV (the embedded default) otherwise.
import { Config, type Context, Effect, Layer, Option } from "effect"
import { followStore, type PortShape } from "./FollowedStore.ts"
import { JobReadModel } from "./JobReadModel.ts"
import { KeyReadModel } from "./KeyReadModel.ts"
import { KvReadModelBackend } from "./kv/KvReadModelBackend.ts"
import { MediaReadModel } from "./MediaReadModel.ts"
import { MONGO_URL } from "./mongo/MongoSettings.ts"
import { ProjectReadModel } from "./ProjectReadModel.ts"
import { ReadModelBackend, type ReadModelBackendKind, type ReadModelBackendShape, type ReadModelName } from "./ReadModelBackend.ts"
import type { ReadModelError } from "./ReadModelError.ts"
import { ReadModelStores } from "./ReadModelStores.ts"
import { SubscriptionReadModel } from "./SubscriptionReadModel.ts"
import { UsageReadModel } from "./UsageReadModel.ts"

/** Which backend the configuration selects. */
export const configuredBackend = Config.option(MONGO_URL).pipe(
  Config.map((url): ReadModelBackendKind => (Option.isSome(url) ? "mongo" : "kv"))
)

/**
 * The backend of a given kind; MongoDB reads MONGO_URL (and fails with a config error without it). Needs NatsClient
 * and Lifetimes. The MongoDB adapter is imported on demand: the embedded default never loads the driver.
 */
export const backendLayer = (kind: ReadModelBackendKind) =>
  kind === "mongo"
    ? Layer.unwrap(
        Effect.promise(() => import("./mongo/MongoReadModelBackend.ts")).pipe(Effect.map((mongo) => mongo.MongoReadModelBackendFromConfig))
      )
    : KvReadModelBackend

/** The backend the configuration selects. */
export const ConfiguredBackend = Layer.unwrap(Effect.map(configuredBackend, backendLayer))

/** One read model, following its store pointer on the backend (its default store until a rebuild switched it). */
const following = <I, S extends PortShape>(
  service: Context.Key<I, S>,
  readModel: ReadModelName,
  open: (backend: ReadModelBackendShape) => (store: string) => Effect.Effect<S, ReadModelError>
) =>
  Layer.effect(
    service,
    Effect.flatMap(ReadModelBackend, (backend) => followStore({ readModel, fallback: backend.defaults[readModel], open: open(backend) }))
  )

/** Every read model of a backend, each following its store pointer so a rebuild's switch reaches this process. */
export const FollowingReadModels = Layer.mergeAll(
  following(JobReadModel, "jobs", (backend) => backend.openJobs),
  following(MediaReadModel, "media", (backend) => backend.openMedia),
  following(ProjectReadModel, "projects", (backend) => backend.openProjects),
  following(KeyReadModel, "keys", (backend) => backend.openKeys),
  following(UsageReadModel, "usage", (backend) => backend.openUsage),
  following(SubscriptionReadModel, "subscriptions", (backend) => backend.openSubscriptions)
).pipe(
  Layer.provideMerge(
    Layer.effect(
      ReadModelStores,
      Effect.map(ReadModelBackend, (backend) => backend.stores)
    )
  )
)

/** The read models every service uses. Needs NatsClient and Lifetimes. */
export const ReadModelLayer = FollowingReadModels.pipe(Layer.provide(ConfiguredBackend))

/** The read models on NATS KV regardless of config (tests, tools). */
export const KvReadModels = FollowingReadModels.pipe(Layer.provideMerge(KvReadModelBackend))

// Runs the read-model contract suites against the MongoDB adapters on a real mongod in a container (Docker needed).
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, describe } from "vitest"
import { MongoDatabase } from "@mds/shared/readmodel/mongo/MongoDatabase"
import { JOBS_COLLECTION, MongoJobReadModel } from "@mds/shared/readmodel/mongo/MongoJobReadModel"
import { KEYS_COLLECTION, MongoKeyReadModel } from "@mds/shared/readmodel/mongo/MongoKeyReadModel"
import { MEDIA_COLLECTION, MongoMediaReadModel } from "@mds/shared/readmodel/mongo/MongoMediaReadModel"
import { MongoProjectReadModel, PROJECTS_COLLECTION } from "@mds/shared/readmodel/mongo/MongoProjectReadModel"
import { MongoReadModelStores } from "@mds/shared/readmodel/mongo/MongoReadModelStores"
import { announceDockerSkip, dockerAvailable, NO_DOCKER_REASON } from "../../support/DockerEngine.ts"
import { MONGO_IMAGE, stopContainers, TestMongo } from "../support/TestContainers.ts"
import { TestLifetimes } from "../support/TestNats.ts"
import { keyReadModelContract, projectReadModelContract } from "./AccountReadModels.contract.ts"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract } from "./MediaReadModel.contract.ts"
import { readModelStoresContract } from "./ReadModelStores.contract.ts"
import { MongoUsageReadModel } from "@mds/shared/readmodel/mongo/MongoUsageReadModel"
import { usageReadModelContract } from "./UsageReadModel.contract.ts"
import { MongoSubscriptionReadModel } from "@mds/shared/readmodel/mongo/MongoSubscriptionReadModel"
import { subscriptionReadModelContract } from "./SubscriptionReadModel.contract.ts"

announceDockerSkip("MongoDB read models")

const title = dockerAvailable ? `MongoDB read models (${MONGO_IMAGE} via testcontainers)` : `MongoDB read models (${NO_DOCKER_REASON})`

describe.skipIf(!dockerAvailable)(title, () => {
  afterAll(stopContainers)
  // One container for the file; every suite gets its own collections.
  const mongo = Layer.mergeAll(TestMongo, TestLifetimes)
  jobReadModelContract("MongoDB", MongoJobReadModel.layerWithCollection("contract_jobs").pipe(Layer.provide(mongo)))
  mediaReadModelContract("MongoDB", MongoMediaReadModel.layerWithCollection("contract_media").pipe(Layer.provide(mongo)))
  readModelStoresContract("MongoDB", MongoReadModelStores.layerWithCollection("contract_readmodels").pipe(Layer.provide(mongo)))
  projectReadModelContract("MongoDB", MongoProjectReadModel.layerWithCollection("contract_projects").pipe(Layer.provide(mongo)))
  keyReadModelContract("MongoDB", MongoKeyReadModel.layerWithCollection("contract_keys").pipe(Layer.provide(mongo)))
  usageReadModelContract("MongoDB", MongoUsageReadModel.layerWithCollection("contract_usage").pipe(Layer.provide(mongo)))
  subscriptionReadModelContract(
    "MongoDB",
    MongoSubscriptionReadModel.layerWithCollection("contract_subscriptions").pipe(Layer.provide(mongo))
  )

  const production = Layer.mergeAll(
    MongoJobReadModel.layer,
    MongoMediaReadModel.layer,
    MongoProjectReadModel.layer,
    MongoKeyReadModel.layer
  )
  layer(production.pipe(Layer.provideMerge(mongo)), { timeout: 120_000 })("MongoDB indexes", (it) => {
    it.effect("the queries have their indexes; jobs and media expire through TTL indexes, projects and keys never", () =>
      Effect.gen(function* () {
        const { db } = yield* MongoDatabase
        const indexes = (collection: string) =>
          Effect.map(
            Effect.promise(() => db.collection(collection).indexes()),
            (all) => Object.fromEntries(all.map((index) => [index.name ?? "", { key: index.key, ttl: index.expireAfterSeconds }]))
          )
        const jobs = yield* indexes(JOBS_COLLECTION)
        const media = yield* indexes(MEDIA_COLLECTION)
        assert.deepStrictEqual(jobs["project_newest_first"], { key: { projectId: 1, createdAt: -1, id: -1 }, ttl: undefined })
        assert.deepStrictEqual(jobs["purge_at_ttl"], { key: { purgeAt: 1 }, ttl: 0 })
        assert.deepStrictEqual(media["url_latest_first"], { key: { url: 1, resolvedAt: -1 }, ttl: undefined })
        assert.deepStrictEqual(media["purge_at_ttl"], { key: { purgeAt: 1 }, ttl: 0 })
        // Projects and keys live as long as their events: indexed for their lists, never expired.
        const projects = yield* indexes(PROJECTS_COLLECTION)
        const keys = yield* indexes(KEYS_COLLECTION)
        assert.deepStrictEqual(projects["member_projects"], { key: { "members.userId": 1 }, ttl: undefined })
        assert.deepStrictEqual(keys["project_newest_first"], { key: { projectId: 1, createdAt: -1, keyId: -1 }, ttl: undefined })
        assert.deepStrictEqual(
          [...Object.values(projects), ...Object.values(keys)].filter((index) => index.ttl !== undefined),
          []
        )
      })
    )
  })
})

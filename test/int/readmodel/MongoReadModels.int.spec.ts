// Runs the read-model contract suites against the MongoDB adapters on a real mongod in a container (Docker needed).
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { afterAll, describe } from "vitest"
import { MongoDatabase } from "@mds/shared/readmodel/MongoDatabase"
import { JOBS_COLLECTION, MongoJobReadModel } from "@mds/shared/readmodel/MongoJobReadModel"
import { MEDIA_COLLECTION, MongoMediaReadModel } from "@mds/shared/readmodel/MongoMediaReadModel"
import { MongoReadModelStores } from "@mds/shared/readmodel/MongoReadModelStores"
import { announceDockerSkip, dockerAvailable, NO_DOCKER_REASON } from "../../support/DockerEngine.ts"
import { MONGO_IMAGE, stopContainers, TestMongo } from "../support/TestContainers.ts"
import { TestLifetimes } from "../support/TestNats.ts"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract } from "./MediaReadModel.contract.ts"
import { readModelStoresContract } from "./ReadModelStores.contract.ts"

announceDockerSkip("MongoDB read models")

const title = dockerAvailable ? `MongoDB read models (${MONGO_IMAGE} via testcontainers)` : `MongoDB read models (${NO_DOCKER_REASON})`

describe.skipIf(!dockerAvailable)(title, () => {
  afterAll(stopContainers)
  // One container for the file; every suite gets its own collections.
  const mongo = Layer.mergeAll(TestMongo, TestLifetimes)
  jobReadModelContract("MongoDB", MongoJobReadModel.layerWithCollection("contract_jobs").pipe(Layer.provide(mongo)))
  mediaReadModelContract("MongoDB", MongoMediaReadModel.layerWithCollection("contract_media").pipe(Layer.provide(mongo)))
  readModelStoresContract("MongoDB", MongoReadModelStores.layerWithCollection("contract_readmodels").pipe(Layer.provide(mongo)))

  layer(Layer.mergeAll(MongoJobReadModel.layer, MongoMediaReadModel.layer).pipe(Layer.provideMerge(mongo)), { timeout: 120_000 })(
    "MongoDB indexes",
    (it) => {
      it.effect("the queries have their indexes and documents expire through TTL indexes", () =>
        Effect.gen(function*() {
          const { db } = yield* MongoDatabase
          const jobs = yield* Effect.promise(() => db.collection(JOBS_COLLECTION).indexes())
          const media = yield* Effect.promise(() => db.collection(MEDIA_COLLECTION).indexes())
          const byName = (indexes: ReadonlyArray<{ name?: string }>, name: string) => indexes.find((index) => index.name === name)
          assert.deepStrictEqual(byName(jobs, "project_newest_first")?.["key" as never], { projectId: 1, createdAt: -1, id: -1 } as never)
          assert.strictEqual((byName(jobs, "purge_at_ttl") as { expireAfterSeconds?: number } | undefined)?.expireAfterSeconds, 0)
          assert.deepStrictEqual(byName(media, "url_latest_first")?.["key" as never], { url: 1, resolvedAt: -1 } as never)
          assert.strictEqual((byName(media, "purge_at_ttl") as { expireAfterSeconds?: number } | undefined)?.expireAfterSeconds, 0)
        }))
    }
  )
})

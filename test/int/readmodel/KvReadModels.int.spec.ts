// Runs the read-model contract suites against the NATS KV adapters on a real nats-server, plus KV-specific checks.
import { assert, layer } from "@effect/vitest"
import { Kvm } from "@nats-io/kv"
import { Effect, Layer, Option } from "effect"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { JOBS_BUCKET, KvJobReadModel } from "@mds/shared/readmodel/kv/KvJobReadModel"
import { KvMediaReadModel, MEDIA_BUCKET, urlIndexKey } from "@mds/shared/readmodel/kv/KvMediaReadModel"
import { KvReadModelStores } from "@mds/shared/readmodel/kv/KvReadModelStores"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { TestNats } from "../support/TestNats.ts"
import { eventuallyEffect } from "../../support/Eventually.ts"
import { jobView } from "../../support/JobViews.ts"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract, resolvedMedia } from "./MediaReadModel.contract.ts"
import { readModelStoresContract } from "./ReadModelStores.contract.ts"
import { KvUsageReadModel } from "@mds/shared/readmodel/kv/KvUsageReadModel"
import { usageReadModelContract } from "./UsageReadModel.contract.ts"
import { KvSubscriptionReadModel } from "@mds/shared/readmodel/kv/KvSubscriptionReadModel"
import { subscriptionReadModelContract } from "./SubscriptionReadModel.contract.ts"

jobReadModelContract("NATS KV", KvJobReadModel.layer.pipe(Layer.provide(TestNats)))
mediaReadModelContract("NATS KV", KvMediaReadModel.layer.pipe(Layer.provide(TestNats)))
readModelStoresContract("NATS KV", KvReadModelStores.layer.pipe(Layer.provide(TestNats)))
usageReadModelContract("NATS KV", KvUsageReadModel.layer.pipe(Layer.provide(TestNats)))
subscriptionReadModelContract("NATS KV", KvSubscriptionReadModel.layer.pipe(Layer.provide(TestNats)))

const kvLayer = Layer.mergeAll(KvJobReadModel.layer, KvMediaReadModel.layer).pipe(Layer.provideMerge(TestNats))

layer(kvLayer, { timeout: 60_000 })("NATS KV read models", (it) => {
  it.effect("buckets keep one value per key and expire documents after the configured lifetimes", () =>
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      const jobs = yield* Effect.promise(() => jsm.streams.info(`KV_${JOBS_BUCKET}`))
      const media = yield* Effect.promise(() => jsm.streams.info(`KV_${MEDIA_BUCKET}`))
      const ns = (ms: number) => ms * 1_000_000
      assert.strictEqual(jobs.config.max_msgs_per_subject, 1)
      assert.strictEqual(jobs.config.max_age, ns(3 * 3_600_000))
      assert.strictEqual(media.config.max_age, ns(2 * 3_600_000))
    })
  )

  it.effect("a job document that fails to decode is an error, never a document", () =>
    Effect.gen(function* () {
      const { js } = yield* NatsClient
      const view = jobView("prj_broken")
      const kv = yield* Effect.promise(() => new Kvm(js).open(JOBS_BUCKET))
      yield* Effect.promise(() => kv.put(`${view.projectId}.${view.id}`, JSON.stringify({ ...view, status: "bogus" })))
      const store = yield* JobReadModel
      const error = yield* Effect.flip(store.get(view.projectId, view.id))
      assert.strictEqual(error._tag, "ReadModelError")
      const listError = yield* Effect.flip(store.listByProject(view.projectId, 10))
      assert.strictEqual(listError._tag, "ReadModelError")
    })
  )

  it.effect("a media document that fails to decode is an error, also through the URL index", () =>
    Effect.gen(function* () {
      const { js } = yield* NatsClient
      const media = resolvedMedia()
      const kv = yield* Effect.promise(() => new Kvm(js).open(MEDIA_BUCKET))
      yield* Effect.promise(() => kv.put(media.mediaId, "{not json"))
      yield* Effect.promise(() => kv.put(urlIndexKey(media.url), media.mediaId))
      const store = yield* MediaReadModel
      assert.strictEqual((yield* Effect.flip(store.get(media.mediaId)))._tag, "ReadModelError")
      assert.strictEqual((yield* Effect.flip(store.findByUrl(media.url)))._tag, "ReadModelError")
    })
  )
})

layer(KvReadModels.pipe(Layer.provideMerge(TestNats)), { timeout: 60_000, excludeTestServices: true })(
  "NATS KV read models behind their pointers",
  (it) => {
    it.effect("follow a switch to a new bucket within the refresh interval, and keep writing there", () =>
      Effect.gen(function* () {
        const jobs = yield* JobReadModel
        const stores = yield* ReadModelStores
        const { js } = yield* NatsClient
        const before = jobView("prj_follow")
        yield* jobs.put(before)
        assert.isTrue(Option.isSome(yield* jobs.get(before.projectId, before.id)))
        const defaultBucket = yield* Effect.promise(() => new Kvm(js).open(JOBS_BUCKET))
        assert.isNotNull(yield* Effect.promise(() => defaultBucket.get(`${before.projectId}.${before.id}`)))

        assert.strictEqual(yield* stores.switchTo("jobs", "mds_jobs_rtest", JOBS_BUCKET), JOBS_BUCKET)
        // The new bucket is empty: once the reader follows the switched pointer, the document written before is not in it.
        yield* eventuallyEffect(jobs.get(before.projectId, before.id), Option.isNone, "the reader on the new bucket", 5_000)
        const after = jobView("prj_follow")
        yield* jobs.put(after)
        const rebuilt = yield* Effect.promise(() => new Kvm(js).open("mds_jobs_rtest"))
        assert.isNotNull(yield* Effect.promise(() => rebuilt.get(`${after.projectId}.${after.id}`)))
        assert.isNull(yield* Effect.promise(() => defaultBucket.get(`${after.projectId}.${after.id}`)))
        assert.deepStrictEqual(
          (yield* jobs.listByProject("prj_follow", 10)).map((v) => v.id),
          [after.id]
        )
      })
    )
  }
)

// The NATS Object Store ResolvedInfoStore on a real nats-server: the shared contract, and the bucket's lifetime.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { TestNats, testLifetimes } from "../../../test/int/support/TestNats.ts"
import { ObjectStoreResolvedInfoStore, RESOLVED_INFO_BUCKET } from "../src/resolve/info/ObjectStoreResolvedInfoStore.ts"
import { resolvedInfoStoreContract } from "../src/resolve/info/ResolvedInfoStore.contract.ts"

resolvedInfoStoreContract("NATS Object Store", ObjectStoreResolvedInfoStore.layer.pipe(Layer.provide(TestNats)))

layer(ObjectStoreResolvedInfoStore.layer.pipe(Layer.provideMerge(TestNats)), { timeout: 60_000 })("NATS Object Store bucket", (it) => {
  it.effect("expires entries after the media lifetime (API_MEDIA_RESOLVE_TTL_SECONDS)", () =>
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      const info = yield* Effect.promise(() => jsm.streams.info(`OBJ_${RESOLVED_INFO_BUCKET}`))
      assert.strictEqual(info.config.max_age, testLifetimes.mediaMs * 1_000_000)
    })
  )
})

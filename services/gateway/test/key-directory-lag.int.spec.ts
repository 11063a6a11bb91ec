// The key directory while its follower lags: a revocation stored while the follower's delivery is held is refused (the
// directory cannot show it is caught up, so lookups read the key's stream), and memory is trusted again once it is.
import { assert, layer } from "@effect/vitest"
import { KeyEvent } from "@mds/shared/domain/account/AccountEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { keySubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { Followers } from "@mds/shared/nats/Followers"
import { Effect, Layer, Option } from "effect"
import { HeldDelivery, HeldDeliveryLayer } from "../../../test/int/support/HeldDelivery.ts"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { KeyDirectory, KEYS_FOLLOWER } from "../src/auth/KeyDirectory.ts"

const TestLayer = KeyDirectory.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Followers.layer)),
  Layer.provideMerge(HeldDeliveryLayer),
  Layer.provideMerge(TestNats)
)

const projectId = newId("prj")

const appendKeyEvent = (event: KeyEvent, n: number) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    return yield* store.append(KeyEvent, keySubject(event.keyId), event, { msgId: `${event.keyId}:${n}` })
  })

const created = (keyId: string): KeyEvent => ({
  _tag: "KeyCreated",
  v: 1,
  keyId,
  projectId,
  name: "ci",
  environment: "live",
  scopes: ["media:download"],
  hash: "00".repeat(32),
  prefix: "svc_live_abcd",
  at: 1
})

const revoked = (keyId: string): KeyEvent => ({ _tag: "KeyRevoked", v: 1, keyId, projectId, at: 2 })

const directoryHolds = (keyId: string) =>
  Effect.gen(function* () {
    const directory = yield* KeyDirectory
    const followers = yield* Followers
    return yield* eventuallyEffect(
      Effect.sync(() => ({ follower: followers.snapshot()[KEYS_FOLLOWER], known: directory.peek(keyId) !== undefined })),
      (s) => s.follower === "following" && s.known,
      `the key directory following and holding ${keyId}`
    )
  })

// Live clock: the follower's consumer delivers and its probe runs in real time.
layer(TestLayer, { timeout: 60_000, excludeTestServices: true })("KeyDirectory with a lagging follower", (it) => {
  it.effect("a revocation stored while the follower's delivery is held is refused, and memory answers again once delivered", () =>
    Effect.gen(function* () {
      const directory = yield* KeyDirectory
      const held = yield* HeldDelivery
      const keyId = newId("key")
      yield* appendKeyEvent(created(keyId), 1)
      yield* directoryHolds(keyId)

      held.hold()
      yield* appendKeyEvent(revoked(keyId), 2)
      // The server has delivered the revocation; the directory has not seen it. It must not answer from memory.
      const answer = yield* eventuallyEffect(
        directory.lookup(keyId),
        (state) => Option.isSome(state) && state.value.revokedAt !== null,
        "the revoked key to be refused while the follower is held",
        5_000
      )
      assert.strictEqual(Option.getOrNull(answer)?.revokedAt, 2)
      assert.strictEqual(directory.peek(keyId), undefined, "a held follower's memory is not trusted")

      held.release()
      yield* directoryHolds(keyId)
      assert.strictEqual(directory.peek(keyId)?.revokedAt, 2)
    })
  )
})

// The account projections on a real nats-server: project and key documents equal the fold of their subjects,
// last-used times may arrive before the key, poison is stepped over, and a fresh consumer rebuilds the same documents.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import {
  type KeyEvent,
  KeyEvent as KeyEventCodec,
  KeyUsed,
  type ProjectEvent,
  ProjectEvent as ProjectEventCodec
} from "@mds/shared/domain/account/AccountEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { keySubject, keyUsageSubject, projectSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { KvKeyReadModel } from "@mds/shared/readmodel/kv/KvKeyReadModel"
import { KvProjectReadModel } from "@mds/shared/readmodel/kv/KvProjectReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { AccountProjection, accountsProjection, keyUsageProjection } from "../src/accounts/AccountProjection.ts"
import { runProjections } from "../src/projections/Aggregator.ts"
import { withDurablePrefix } from "../src/projections/Projection.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { Parking } from "../src/consumers/Parking.ts"

/** One aggregator instance with its own durables and buckets, as a fresh deployment would have. */
const instance = (name: string) =>
  runProjections(withDurablePrefix(name, [accountsProjection, keyUsageProjection])).pipe(
    Layer.provide(AccountProjection.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        KvProjectReadModel.layerWithBucket(`${name}_projects`),
        KvKeyReadModel.layerWithBucket(`${name}_keys`),
        SubjectHistory.layer
      )
    )
  )

const shared = Layer.mergeAll(JetStreamEventStore, Parking.layer).pipe(Layer.provideMerge(TestNats))

layer(shared, { timeout: 120_000, excludeTestServices: true })("account projections", (it) => {
  it.effect("fold projects and keys, take usage before creation, skip poison, and rebuild identically", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { js } = yield* NatsClient
      const projectId = newId("prj")
      const keyId = `key_${"ab".repeat(12)}`
      const ann = { userId: "usr_aaaaaaaaaaaaaaaaaaaaaaaa", email: "ann@example.org" }
      const project: ReadonlyArray<ProjectEvent> = [
        { _tag: "ProjectCreated", v: 1, projectId, name: "First", owner: ann, at: 1 },
        { _tag: "ProjectRenamed", v: 1, projectId, name: "Second", at: 2 },
        { _tag: "ProjectMemberAdded", v: 1, projectId, userId: "usr_bbbbbbbbbbbbbbbbbbbbbbbb", email: "bob@example.org", at: 3 }
      ]
      const created: KeyEvent = {
        _tag: "KeyCreated",
        v: 1,
        keyId,
        projectId,
        name: "ci",
        environment: "test",
        scopes: ["media:resolve"],
        hash: "f".repeat(64),
        prefix: "svc_test_Ab3x",
        at: 10
      }
      // Usage first: the gateway may flush it before the aggregator has seen the key.
      yield* store.append(KeyUsed, keyUsageSubject(keyId), { _tag: "KeyUsed", v: 1, keyId, projectId, at: 50 }, { msgId: "u1" })
      for (const [i, event] of project.slice(0, 2).entries()) {
        yield* store.append(ProjectEventCodec, projectSubject(projectId), event, { msgId: `p${i}` })
      }
      // A poison message in the middle of the project subject.
      yield* Effect.promise(() => js.publish(projectSubject(projectId), "{not json", { msgID: "poison" }))
      yield* store.append(ProjectEventCodec, projectSubject(projectId), project[2]!, { msgId: "p2" })
      yield* store.append(KeyEventCodec, keySubject(keyId), created, { msgId: "k1" })
      yield* store.append(KeyEventCodec, keySubject(keyId), { _tag: "KeyRevoked", v: 1, keyId, projectId, at: 60 }, { msgId: "k2" })

      const readBoth = Effect.gen(function* () {
        const projects = yield* ProjectReadModel
        const keys = yield* KeyReadModel
        return {
          project: Option.getOrNull(yield* projects.get(projectId)),
          key: Option.getOrNull(yield* keys.get(projectId, keyId)),
          bobs: (yield* projects.listByMember("usr_bbbbbbbbbbbbbbbbbbbbbbbb")).map((p) => p.projectId)
        }
      })
      const complete = (docs: Effect.Success<typeof readBoth>) =>
        docs.project?.members.length === 2 && docs.key?.revokedAt !== null && docs.key?.lastUsedAt === 50

      const first = yield* eventuallyEffect(readBoth, complete, "first projection").pipe(Effect.provide(instance("first")))
      assert.strictEqual(first.project?.name, "Second")
      assert.deepStrictEqual(first.bobs, [projectId])
      assert.deepStrictEqual(
        { ...first.key, lastSeq: 0 },
        {
          keyId,
          projectId,
          name: "ci",
          environment: "test",
          scopes: ["media:resolve"],
          prefix: "svc_test_Ab3x",
          createdAt: 10,
          revokedAt: 60,
          lastSeq: 0,
          lastUsedAt: 50
        }
      )
      assert.notInclude(JSON.stringify(first), "f".repeat(64))

      // A fresh deployment (new durables, empty buckets) folds the same streams into the same documents.
      const rebuilt = yield* eventuallyEffect(readBoth, complete, "rebuilt projection").pipe(Effect.provide(instance("rebuilt")))
      assert.deepStrictEqual(rebuilt, first)
    })
  )
})

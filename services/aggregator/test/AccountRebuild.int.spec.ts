// SRE replay of the project and key read models on a real nats-server: rebuilt beside the running account
// aggregator while events arrive, they equal the live read models and the fold of the events.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isDeepStrictEqual, promisify } from "node:util"
import { assert, layer } from "@effect/vitest"
import { Kvm } from "@nats-io/kv"
import { Effect, Fiber, Layer, Option } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import {
  type KeyEvent,
  KeyEvent as KeyEventCodec,
  KeyUsed,
  type ProjectEvent,
  ProjectEvent as ProjectEventCodec,
  UserEvent
} from "@mds/shared/domain/account/AccountEvent"
import { evolveKeyRecord, evolveProjectView, type KeyRecord, type KeyView, type ProjectView } from "@mds/shared/domain/account/AccountViews"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { keySubject, keyUsageSubject, projectSubject, userSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { userIdFromEmail } from "@mds/shared/ids/UserId"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { KEYS_BUCKET } from "@mds/shared/readmodel/kv/KvKeyReadModel"
import { PROJECTS_BUCKET } from "@mds/shared/readmodel/kv/KvProjectReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { AccountProjection, accountsProjection, keyUsageProjection } from "../src/accounts/AccountProjection.ts"
import { runProjections } from "../src/projections/Aggregator.ts"
import { rebuildReadModel } from "../src/rebuild/ProjectionRebuild.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { TestNats, TestNatsServer } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { Parking } from "../src/consumers/Parking.ts"

const SECRET = "account-rebuild-secret"
const BASE = "http://files.test"
// A rebuild can replay every read model, so it needs what the job projection needs too.
const artifacts = Layer.effect(
  ArtifactStore,
  Effect.map(
    Effect.promise(() => mkdtemp(join(tmpdir(), "mds-account-rebuild-"))),
    (dir) => makeFsArtifactStore(dir, makeDownloadLinkSigner(SECRET, BASE))
  )
)

/** The running service: the account aggregator on the read models behind their pointers, as in production. */
const live = runProjections([accountsProjection, keyUsageProjection]).pipe(
  Layer.provide(AccountProjection.layer),
  Layer.provideMerge(Layer.mergeAll(KvReadModels, artifacts, SubjectHistory.layer)),
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Parking.layer)),
  Layer.provideMerge(TestNats)
)

const member = (name: string) => {
  const email = `${name}-${randomBytes(4).toString("hex")}@example.org`
  return { userId: userIdFromEmail(email), email }
}

interface Project {
  readonly projectId: string
  readonly events: Array<readonly [number, ProjectEvent]>
}
interface Key {
  readonly projectId: string
  readonly keyId: string
  readonly events: Array<readonly [number, KeyEvent]>
  uses: Array<number>
}

const expectedProject = (p: Project): ProjectView | null =>
  p.events.reduce<ProjectView | null>((doc, [seq, event]) => evolveProjectView(doc, event, seq), null)
const expectedKey = (k: Key): KeyView | null => {
  const record = k.events.reduce<KeyRecord | null>((doc, [seq, event]) => evolveKeyRecord(doc, event, seq), null)
  return record === null ? null : { ...record, lastUsedAt: k.uses.length === 0 ? null : Math.max(...k.uses) }
}

/** A rebuild beside the live aggregator may take a while on a busy machine. */
const WAIT_MS = 20_000

const quietBar = () => ({ update: () => undefined, finish: () => undefined })
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

layer(live, { timeout: 180_000, excludeTestServices: true })("projections rebuild: projects and keys", (it) => {
  it.effect("rebuild beside the running aggregator, switch readers and writers over, and equal the live read models", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const { js, jsm } = yield* NatsClient
      const projectsModel = yield* ProjectReadModel
      const keysModel = yield* KeyReadModel
      const pointers = yield* ReadModelStores
      const [ann, bob, cy] = [member("ann"), member("bob"), member("cy")]
      const projects: Array<Project> = []
      const keys: Array<Key> = []
      // What the streams hold for each rebuild: project subjects; key subjects plus the last use of each key.
      let projectMessages = 0
      let keyMessages = 0
      const usedKeys = new Set<string>()
      let n = 0

      const recordProject = (p: Project, event: ProjectEvent) =>
        Effect.map(
          store.append(ProjectEventCodec, projectSubject(p.projectId), event, { msgId: `p-${p.projectId}-${p.events.length}` }),
          (a) => {
            projectMessages++
            p.events.push([a.seq, event])
          }
        )
      const recordKey = (k: Key, event: KeyEvent) =>
        Effect.map(store.append(KeyEventCodec, keySubject(k.keyId), event, { msgId: `k-${k.keyId}-${k.events.length}` }), (a) => {
          keyMessages++
          k.events.push([a.seq, event])
        })
      const use = (k: Key, at: number) =>
        Effect.map(
          store.append(
            KeyUsed,
            keyUsageSubject(k.keyId),
            { _tag: "KeyUsed", v: 1, keyId: k.keyId, projectId: k.projectId, at },
            { msgId: `u-${k.keyId}-${at}` }
          ),
          () => {
            if (!usedKeys.has(k.keyId)) keyMessages++
            usedKeys.add(k.keyId)
            k.uses.push(at)
          }
        )
      const newProject = (name: string, owner?: { userId: string; email: string }) =>
        Effect.gen(function* () {
          const p: Project = { projectId: newId("prj"), events: [] }
          projects.push(p)
          yield* recordProject(p, {
            _tag: "ProjectCreated",
            v: 1,
            projectId: p.projectId,
            name,
            ...(owner === undefined ? {} : { owner }),
            at: 1_000 + n++
          })
          return p
        })
      const newKey = (projectId: string) =>
        Effect.sync(() => {
          const k: Key = { projectId, keyId: `key_${randomBytes(12).toString("hex")}`, events: [], uses: [] }
          keys.push(k)
          return k
        })
      const created = (k: Key, name: string): KeyEvent => ({
        _tag: "KeyCreated",
        v: 1,
        keyId: k.keyId,
        projectId: k.projectId,
        name,
        environment: n % 2 === 0 ? "live" : "test",
        scopes: ["media:resolve"],
        hash: "f".repeat(64),
        prefix: "svc_live_Ab3x",
        at: 2_000 + n++
      })

      // Projects: renamed, members added, one made with the admin CLI (no owner), and poison in one subject.
      for (let i = 0; i < 6; i++) {
        const p = yield* newProject(`Project ${i}`, i === 5 ? undefined : i % 2 === 0 ? ann : bob)
        if (i % 3 === 0)
          yield* recordProject(p, { _tag: "ProjectRenamed", v: 1, projectId: p.projectId, name: `Renamed ${i}`, at: 3_000 + i })
        if (i % 2 === 0) yield* recordProject(p, { _tag: "ProjectMemberAdded", v: 1, projectId: p.projectId, ...cy, at: 4_000 + i })
      }
      yield* Effect.promise(() =>
        js.publish(projectSubject(projects[0]!.projectId), "{not json", { msgID: `poison-${projects[0]!.projectId}` })
      )
      projectMessages++
      // A user subject in the same stream: neither rebuild replays it.
      const user = { _tag: "UserCreated" as const, v: 1 as const, userId: ann.userId, email: ann.email, passwordHash: "scrypt$x", at: 1 }
      yield* store.append(UserEvent, userSubject(ann.userId), user, { msgId: `user-${ann.userId}` })

      // Keys over two projects: revoked ones, used ones, one used before it was created, one used and never created.
      for (let i = 0; i < 6; i++) {
        const k = yield* newKey(projects[i % 2]!.projectId)
        if (i === 4) yield* use(k, 1_500)
        yield* recordKey(k, created(k, `key ${i}`))
        if (i % 3 === 1) yield* recordKey(k, { _tag: "KeyRevoked", v: 1, keyId: k.keyId, projectId: k.projectId, at: 5_000 + i })
        if (i % 2 === 0) yield* use(k, 6_000 + i)
        if (i % 2 === 0) yield* use(k, 7_000 + i)
      }
      yield* Effect.promise(() => js.publish(keySubject(keys[1]!.keyId), "{not json", { msgID: `poison-${keys[1]!.keyId}` }))
      keyMessages++
      const ghost = yield* newKey(projects[0]!.projectId)
      yield* use(ghost, 8_000)

      const readProjects = Effect.forEach(projects, (p) => Effect.map(projectsModel.get(p.projectId), Option.getOrNull))
      const readKeys = Effect.forEach(keys, (k) => Effect.map(keysModel.get(k.projectId, k.keyId), Option.getOrNull))
      const readLists = Effect.all({
        members: Effect.forEach([ann, bob, cy], (m) => projectsModel.listByMember(m.userId)),
        keys: Effect.forEach(projects.slice(0, 2), (p) => keysModel.listByProject(p.projectId))
      })
      const readBoth = Effect.all([readProjects, readKeys])
      const matchesFold = ([ps, ks]: readonly [ReadonlyArray<ProjectView | null>, ReadonlyArray<KeyView | null>]) =>
        same(ps, projects.map(expectedProject)) && same(ks, keys.map(expectedKey))
      yield* eventuallyEffect(readBoth, matchesFold, "the live read models", WAIT_MS)
      const liveProjects = yield* readProjects
      const liveKeys = yield* readKeys
      const liveLists = yield* readLists
      assert.deepStrictEqual(
        liveLists.members[1]!.map((p) => p.projectId),
        projects.filter((_, i) => i % 2 === 1 && i !== 5).map((p) => p.projectId)
      )
      assert.notInclude(
        liveLists.keys[0]!.map((k) => k.keyId),
        ghost.keyId
      )

      // The rebuilds run while events keep arriving and the live aggregator keeps projecting them.
      const rebuilding = yield* Effect.forkChild(
        Effect.all(
          [
            rebuildReadModel("projects", { graceMs: 2_500, progress: quietBar }),
            rebuildReadModel("keys", { graceMs: 2_500, progress: quietBar })
          ],
          { concurrency: 2 }
        )
      )
      const touchedProjects = [projects[1]!, projects[2]!]
      const touchedKeys = [keys[0]!, keys[2]!]
      const moreEvents = (from: number, to: number) =>
        Effect.gen(function* () {
          for (let i = from; i < to; i++) {
            const p = touchedProjects[i % 2]!
            yield* recordProject(p, { _tag: "ProjectRenamed", v: 1, projectId: p.projectId, name: `During ${i}`, at: 10_000 + i })
            const k = touchedKeys[i % 2]!
            if (i === 2) yield* recordKey(k, { _tag: "KeyRevoked", v: 1, keyId: k.keyId, projectId: k.projectId, at: 10_000 + i })
            yield* use(k, 11_000 + i)
          }
        })
      // Half while the streams replay, half once both pointers switched (the grace period, while the live aggregator
      // may still write to the store it used before).
      yield* moreEvents(0, 3)
      const switched = Effect.all([pointers.current("projects", PROJECTS_BUCKET), pointers.current("keys", KEYS_BUCKET)])
      yield* eventuallyEffect(switched, ([p, k]) => p !== PROJECTS_BUCKET && k !== KEYS_BUCKET, "both pointers switched", WAIT_MS)
      yield* moreEvents(3, 6)
      yield* recordProject(projects[3]!, { _tag: "ProjectMemberAdded", v: 1, projectId: projects[3]!.projectId, ...ann, at: 12_000 })
      touchedProjects.push(projects[3]!)
      const [projectsResult, keysResult] = yield* Fiber.join(rebuilding)

      assert.strictEqual(projectsResult.previous, PROJECTS_BUCKET)
      assert.match(projectsResult.store, /^mds_projects_r\d+$/)
      assert.strictEqual(keysResult.previous, KEYS_BUCKET)
      assert.match(keysResult.store, /^mds_keys_r\d+$/)
      assert.strictEqual(yield* pointers.current("projects", PROJECTS_BUCKET), projectsResult.store)
      assert.strictEqual(yield* pointers.current("keys", KEYS_BUCKET), keysResult.store)
      // Everything replayed at least up to where the rebuild started: the user subject is not among it.
      assert.isAtLeast(projectsResult.events, 6 + 2 + 3 + 1)
      assert.isAtMost(projectsResult.events, projectMessages)
      // (not at most: a use replacing the last one of its key while the rebuild runs is delivered as well)
      assert.isAtLeast(keysResult.events, 6 + 2 + 1 + 4)
      const buckets = yield* Effect.promise(async () => (await jsm.streams.names().next()).filter((name) => name.startsWith("KV_mds_")))
      assert.notInclude(buckets, `KV_${PROJECTS_BUCKET}`)
      assert.notInclude(buckets, `KV_${KEYS_BUCKET}`)
      assert.includeMembers(buckets, [`KV_${projectsResult.store}`, `KV_${keysResult.store}`])

      // Every document equals the fold of its events, including the events that arrived during the rebuild...
      yield* eventuallyEffect(readBoth, matchesFold, "the rebuilt read models", WAIT_MS)
      // ...and the documents nothing touched since are exactly what the live read model held, lists included.
      const rebuiltProjects = yield* readProjects
      const rebuiltKeys = yield* readKeys
      const rebuiltLists = yield* readLists
      projects.forEach((p, i) => {
        if (!touchedProjects.includes(p)) assert.deepStrictEqual(rebuiltProjects[i], liveProjects[i])
      })
      keys.forEach((k, i) => {
        if (!touchedKeys.includes(k)) assert.deepStrictEqual(rebuiltKeys[i], liveKeys[i])
      })
      const untouchedOnly = <A extends { projectId: string }>(list: ReadonlyArray<A>) =>
        list.filter((p) => !touchedProjects.some((t) => t.projectId === p.projectId))
      assert.deepStrictEqual(rebuiltLists.members.map(untouchedOnly), liveLists.members.map(untouchedOnly))
      const untouchedKeys = (list: ReadonlyArray<KeyView>) => list.filter((k) => !touchedKeys.some((t) => t.keyId === k.keyId))
      assert.deepStrictEqual(rebuiltLists.keys.map(untouchedKeys), liveLists.keys.map(untouchedKeys))
      assert.deepStrictEqual(
        rebuiltLists.members[0]!.map((p) => p.projectId).sort(),
        [0, 2, 3, 4].map((i) => projects[i]!.projectId).sort()
      )

      // The live aggregator now writes into the rebuilt buckets.
      const after = yield* newProject("After the switch", bob)
      yield* eventuallyEffect(projectsModel.get(after.projectId), Option.isSome, "a project created after the switch", WAIT_MS)
      const rebuiltBucket = yield* Effect.promise(() => new Kvm(js).open(projectsResult.store))
      assert.isNotNull(yield* Effect.promise(() => rebuiltBucket.get(`p.${after.projectId}`)))

      // The same through the CLI as a process, every read model (no --projection): the read models stay equal.
      const server = yield* TestNatsServer
      const cli = yield* Effect.promise(() =>
        promisify(execFile)(process.execPath, ["services/aggregator/src/cli/main.ts", "projections", "rebuild", "--to", "kv"], {
          env: { ...process.env, NATS_URL: server.url, DOWNLOAD_URL_SECRET: SECRET, PUBLIC_BASE_URL: BASE, MONGO_URL: "", S3_ENDPOINT: "" },
          timeout: 90_000
        })
      )
      assert.strictEqual(
        cli.stdout.replace(/_r\d+ /g, "_r<time> "),
        [
          "jobs: 0 events replayed into kv store mds_jobs_r<time> (was mds_jobs)",
          "media: 0 events replayed into kv store mds_media_r<time> (was mds_media)",
          `projects: ${projectMessages} events replayed into kv store mds_projects_r<time> (was ${projectsResult.store})`,
          `keys: ${keyMessages} events replayed into kv store mds_keys_r<time> (was ${keysResult.store})`,
          "usage: 0 events replayed into kv store mds_usage_r<time> (was mds_usage)",
          "subscriptions: 0 events replayed into kv store mds_subscriptions_r<time> (was mds_subscriptions)",
          ""
        ].join("\n")
      )
      // Readers follow the pointers the CLI switched (within POINTER_REFRESH_MS).
      const expected = { projects: projects.map(expectedProject), keys: keys.map(expectedKey) }
      const read = yield* eventuallyEffect(
        Effect.all({ projects: readProjects, keys: readKeys }),
        (now) => isDeepStrictEqual(now, expected),
        "the read models after the CLI's rebuild",
        WAIT_MS
      )
      assert.deepStrictEqual(read, expected)
      assert.deepStrictEqual(yield* keysModel.get(ghost.projectId, ghost.keyId), Option.none())
    })
  )
})

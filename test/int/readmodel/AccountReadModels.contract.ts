// Behaviour every ProjectReadModel and KeyReadModel adapter must have; run it against each adapter with its own layer.
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { KeyRecord, ProjectView } from "@mds/shared/domain/account/AccountViews"
import { newId } from "@mds/shared/ids/Ids"
import { userIdFromEmail } from "@mds/shared/ids/UserId"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"

const member = (email: string) => ({ userId: userIdFromEmail(email), email })
const uniqueEmail = () => `${randomBytes(6).toString("hex")}@example.org`

export const projectView = (overrides: Partial<ProjectView> = {}): ProjectView => ({
  projectId: newId("prj"),
  name: "Demo",
  createdAt: 1_000,
  members: [],
  lastSeq: 1,
  ...overrides
})

export const keyRecord = (projectId: string, overrides: Partial<KeyRecord> = {}): KeyRecord => ({
  keyId: `key_${randomBytes(12).toString("hex")}`,
  projectId,
  name: "backend",
  environment: "live",
  scopes: ["media:resolve", "media:download"],
  prefix: "svc_live_Ab3x",
  createdAt: 1_000,
  revokedAt: null,
  lastSeq: 1,
  ...overrides
})

export const projectReadModelContract = (name: string, adapter: Layer.Layer<ProjectReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`ProjectReadModel contract: ${name}`, (it) => {
    it.effect("get of an unknown project is none; put then get returns the same document", () =>
      Effect.gen(function* () {
        const store = yield* ProjectReadModel
        assert.isTrue(Option.isNone(yield* store.get(newId("prj"))))
        const view = projectView({ members: [member(uniqueEmail())] })
        yield* store.put(view)
        assert.deepStrictEqual(yield* store.get(view.projectId), Option.some(view))
      })
    )

    it.effect("put never replaces a document of a later sequence (a slower writer cannot move it backwards)", () =>
      Effect.gen(function* () {
        const store = yield* ProjectReadModel
        const ann = member(uniqueEmail())
        const bob = member(uniqueEmail())
        const view = projectView({ name: "Old", members: [ann] })
        const later = { ...view, name: "New", members: [ann, bob], lastSeq: 9 }
        yield* store.put(later)
        yield* store.put({ ...view, lastSeq: 4 })
        assert.deepStrictEqual(yield* store.get(view.projectId), Option.some(later))
        assert.deepStrictEqual(
          (yield* store.listByMember(bob.userId)).map((v) => v.projectId),
          [view.projectId]
        )
        const sameSeq = { ...later, name: "Same" }
        yield* store.put(sameSeq)
        assert.deepStrictEqual(yield* store.get(view.projectId), Option.some(sameSeq))
      })
    )

    it.effect("listByMember returns exactly the user's projects, by name, reflecting renames", () =>
      Effect.gen(function* () {
        const store = yield* ProjectReadModel
        const ann = member(uniqueEmail())
        const bob = member(uniqueEmail())
        const zeta = projectView({ name: "Zeta", members: [ann] })
        const alpha = projectView({ name: "alpha", members: [ann, bob] })
        const bobs = projectView({ name: "Bob's", members: [bob] })
        yield* Effect.forEach([zeta, alpha, bobs], (v) => store.put(v))
        assert.deepStrictEqual(
          (yield* store.listByMember(ann.userId)).map((v) => v.name),
          ["alpha", "Zeta"]
        )
        assert.deepStrictEqual(
          (yield* store.listByMember(bob.userId)).map((v) => v.name),
          ["alpha", "Bob's"]
        )
        yield* store.put({ ...zeta, name: "Beta", lastSeq: 2 })
        assert.deepStrictEqual(
          (yield* store.listByMember(ann.userId)).map((v) => v.name),
          ["alpha", "Beta"]
        )
        assert.deepStrictEqual(yield* store.listByMember(member(uniqueEmail()).userId), [])
      })
    )

    it.effect("a member added later finds the project; a member dropped from the document no longer does", () =>
      Effect.gen(function* () {
        const store = yield* ProjectReadModel
        const ann = member(uniqueEmail())
        const bob = member(uniqueEmail())
        const view = projectView({ members: [ann] })
        yield* store.put(view)
        assert.deepStrictEqual(yield* store.listByMember(bob.userId), [])
        yield* store.put({ ...view, members: [ann, bob], lastSeq: 2 })
        assert.deepStrictEqual(
          (yield* store.listByMember(bob.userId)).map((v) => v.projectId),
          [view.projectId]
        )
        yield* store.put({ ...view, members: [bob], lastSeq: 3 })
        assert.deepStrictEqual(yield* store.listByMember(ann.userId), [])
      })
    )
  })

export const keyReadModelContract = (name: string, adapter: Layer.Layer<KeyReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`KeyReadModel contract: ${name}`, (it) => {
    it.effect("get of an unknown key is none; put then get returns the record, not yet used", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const record = keyRecord(newId("prj"))
        assert.isTrue(Option.isNone(yield* store.get(record.projectId, record.keyId)))
        yield* store.put(record)
        assert.deepStrictEqual(yield* store.get(record.projectId, record.keyId), Option.some({ ...record, lastUsedAt: null }))
        assert.isTrue(Option.isNone(yield* store.get(newId("prj"), record.keyId)))
      })
    )

    it.effect("listByProject returns the project's keys newest first, with revocations", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const projectId = newId("prj")
        const records = [2_000, 1_000, 3_000].map((createdAt) => keyRecord(projectId, { createdAt }))
        yield* Effect.forEach(records, (r) => store.put(r))
        yield* store.put(keyRecord(newId("prj"), { createdAt: 9_000 }))
        yield* store.put({ ...records[0]!, revokedAt: 5_000, lastSeq: 2 })
        const listed = yield* store.listByProject(projectId)
        assert.deepStrictEqual(
          listed.map((k) => k.createdAt),
          [3_000, 2_000, 1_000]
        )
        assert.deepStrictEqual(
          listed.map((k) => k.revokedAt),
          [null, 5_000, null]
        )
        assert.deepStrictEqual(yield* store.listByProject(newId("prj")), [])
      })
    )

    it.effect("put never replaces a record of a later sequence, and keeps the last-used time either way", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const record = keyRecord(newId("prj"))
        const revoked = { ...record, revokedAt: 5_000, lastSeq: 9 }
        yield* store.put(revoked)
        yield* store.recordUse(record.projectId, record.keyId, 4_000)
        yield* store.put(record)
        assert.deepStrictEqual(yield* store.get(record.projectId, record.keyId), Option.some({ ...revoked, lastUsedAt: 4_000 }))
        const renamed = { ...revoked, name: "renamed" }
        yield* store.put(renamed)
        assert.deepStrictEqual(yield* store.listByProject(record.projectId), [{ ...renamed, lastUsedAt: 4_000 }])
      })
    )

    it.effect("a key only used so far is not listed and not found", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const record = keyRecord(newId("prj"))
        yield* store.recordUse(record.projectId, record.keyId, 3_000)
        assert.isTrue(Option.isNone(yield* store.get(record.projectId, record.keyId)))
        assert.deepStrictEqual(yield* store.listByProject(record.projectId), [])
      })
    )

    it.effect("recordUse keeps the latest time, survives later puts and may come before the key", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const record = keyRecord(newId("prj"))
        yield* store.recordUse(record.projectId, record.keyId, 5_000)
        yield* store.put(record)
        assert.strictEqual(Option.getOrNull(yield* store.get(record.projectId, record.keyId))?.lastUsedAt, 5_000)
        yield* store.recordUse(record.projectId, record.keyId, 4_000)
        yield* store.recordUse(record.projectId, record.keyId, 7_000)
        yield* store.put({ ...record, revokedAt: 8_000, lastSeq: 2 })
        const [listed] = yield* store.listByProject(record.projectId)
        assert.strictEqual(listed?.lastUsedAt, 7_000)
        assert.strictEqual(listed?.revokedAt, 8_000)
      })
    )

    it.effect("concurrent recordUse calls end at the highest time", () =>
      Effect.gen(function* () {
        const store = yield* KeyReadModel
        const record = keyRecord(newId("prj"))
        yield* store.put(record)
        const times = Array.from({ length: 12 }, (_, i) => 10_000 + ((i * 7) % 12) * 100)
        yield* Effect.forEach(times, (at) => store.recordUse(record.projectId, record.keyId, at), { concurrency: "unbounded" })
        assert.strictEqual(Option.getOrNull(yield* store.get(record.projectId, record.keyId))?.lastUsedAt, Math.max(...times))
      })
    )
  })

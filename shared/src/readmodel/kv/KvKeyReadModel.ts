// KeyReadModel on NATS KV: bucket mds_keys, k.<projectId>.<keyId> -> KeyRecord JSON, u.<projectId>.<keyId> -> last use (ms).
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { KeyRecord, type KeyView } from "../../domain/account/AccountViews.ts"
import { KeyReadModel, newestKeyFirst } from "../KeyReadModel.ts"
import { openKvBucket, readModelError, distinctKeys } from "./KvBucket.ts"
import { putUnlessLater } from "./KvConditionalPut.ts"

export const KEYS_BUCKET = "mds_keys"

const KeyJson = Schema.fromJsonString(KeyRecord)
const decodeKey = Schema.decodeUnknownEffect(KeyJson)
const encodeKey = Schema.encodeEffect(KeyJson)

const recordKey = (projectId: string, keyId: string) => `k.${projectId}.${keyId}`
const usedKey = (projectId: string, keyId: string) => `u.${projectId}.${keyId}`
const MAX_CAS_ATTEMPTS = 8

const tryKv = <A>(operation: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: readModelError(operation) })

const readLastUse = (kv: KV, projectId: string, keyId: string) =>
  tryKv(`get ${usedKey(projectId, keyId)}`, () => kv.get(usedKey(projectId, keyId))).pipe(
    Effect.map((entry) => (entry === null || entry.operation !== "PUT" ? null : { at: Number(entry.string()), revision: entry.revision }))
  )

const readKey = (kv: KV, projectId: string, keyId: string) =>
  Effect.gen(function* () {
    const entry = yield* tryKv(`get ${recordKey(projectId, keyId)}`, () => kv.get(recordKey(projectId, keyId)))
    if (entry === null || entry.operation !== "PUT") return Option.none<KeyView>()
    const record = yield* decodeKey(entry.string()).pipe(Effect.mapError(readModelError(`decode ${keyId}`)))
    const used = yield* readLastUse(kv, projectId, keyId)
    return Option.some<KeyView>({ ...record, lastUsedAt: used?.at ?? null })
  })

export const makeKvKeyReadModel = Effect.fn("makeKvKeyReadModel")(function* (bucket: string) {
  const kv = yield* openKvBucket(bucket, 0)

  return KeyReadModel.of({
    get: (projectId, keyId) => readKey(kv, projectId, keyId),

    put: Effect.fn("KvKeyReadModel.put")(function* (record) {
      const json = yield* encodeKey(record).pipe(Effect.mapError(readModelError(`encode ${record.keyId}`)))
      yield* tryKv(`put ${record.keyId}`, () => putUnlessLater(kv, recordKey(record.projectId, record.keyId), json, record.lastSeq))
    }),

    // Compare-and-set on the entry's revision: two writers can never lower the time.
    recordUse: Effect.fn("KvKeyReadModel.recordUse")(function* (projectId, keyId, at) {
      const key = usedKey(projectId, keyId)
      for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
        const current = yield* readLastUse(kv, projectId, keyId)
        if (current !== null && current.at >= at) return
        const written = yield* Effect.tryPromise({
          try: () => (current === null ? kv.create(key, String(at)) : kv.update(key, String(at), current.revision)),
          catch: readModelError(`record use ${keyId}`)
        }).pipe(
          Effect.as(true),
          Effect.catch(() => Effect.succeed(false))
        )
        if (written) return
      }
      return yield* Effect.fail(readModelError(`record use ${keyId}`)("too many concurrent writers"))
    }),

    listByProject: Effect.fn("KvKeyReadModel.listByProject")(function* (projectId) {
      const keys = yield* tryKv(`list k.${projectId}`, async () => {
        return distinctKeys(kv, `k.${projectId}.*`)
      })
      const views = yield* Effect.forEach(keys, (key) => readKey(kv, projectId, key.split(".")[2] ?? ""), { concurrency: 8 })
      return views.flatMap((view) => (Option.isSome(view) ? [view.value] : [])).sort(newestKeyFirst)
    })
  })
})

export const KvKeyReadModel = {
  layer: Layer.effect(KeyReadModel, makeKvKeyReadModel(KEYS_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(KeyReadModel, makeKvKeyReadModel(bucket))
}

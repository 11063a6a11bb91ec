// SessionStore adapters: NATS KV (bucket mds_sessions, shared by every gateway, entries expire with the session TTL), in-memory.
import { openKvBucket, readModelError } from "@mds/shared/readmodel/kv/KvBucket"
import { Effect, Layer, Option, Schema } from "effect"
import { DashboardConfig } from "../DashboardConfig.ts"
import { Session, SessionStore } from "./SessionStore.ts"

export const SESSIONS_BUCKET = "mds_sessions"

const SessionJson = Schema.fromJsonString(Session)
const decodeSession = Schema.decodeUnknownEffect(SessionJson)
const encodeSession = Schema.encodeEffect(SessionJson)

export const makeKvSessionStore = Effect.fn("makeKvSessionStore")(function* (bucket: string, ttlMs: number) {
  const kv = yield* openKvBucket(bucket, ttlMs)
  return SessionStore.of({
    put: Effect.fn("KvSessionStore.put")(function* (idHash, session) {
      const json = yield* encodeSession(session).pipe(Effect.mapError(readModelError("encode session")))
      yield* Effect.tryPromise({ try: () => kv.put(idHash, json), catch: readModelError("put session") })
    }),
    get: Effect.fn("KvSessionStore.get")(function* (idHash) {
      const entry = yield* Effect.tryPromise({ try: () => kv.get(idHash), catch: readModelError("get session") })
      if (entry === null || entry.operation !== "PUT") return Option.none()
      return Option.some(yield* decodeSession(entry.string()).pipe(Effect.mapError(readModelError("decode session"))))
    }),
    remove: (idHash) => Effect.tryPromise({ try: () => kv.purge(idHash), catch: readModelError("remove session") })
  })
})

export const KvSessionStore = {
  layer: Layer.effect(
    SessionStore,
    Effect.gen(function* () {
      const config = yield* DashboardConfig
      return yield* makeKvSessionStore(SESSIONS_BUCKET, config.sessionTtlMs)
    })
  ),
  layerWith: (bucket: string, ttlMs: number) => Layer.effect(SessionStore, makeKvSessionStore(bucket, ttlMs))
}

export const InMemorySessionStore = {
  layer: Layer.sync(SessionStore, () => {
    const sessions = new Map<string, Session>()
    return SessionStore.of({
      put: (idHash, session) => Effect.sync(() => void sessions.set(idHash, session)),
      get: (idHash) => Effect.sync(() => Option.fromNullishOr(sessions.get(idHash))),
      remove: (idHash) => Effect.sync(() => void sessions.delete(idHash))
    })
  })
}

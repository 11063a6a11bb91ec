// Behaviour every SessionStore adapter must have; run it against each adapter with its own layer.
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { type Session, SessionStore } from "../../src/dashboard/session/SessionStore.ts"

const session = (overrides: Partial<Session> = {}): Session => ({
  userId: "usr_0123456789abcdef01234567",
  email: "ann@example.org",
  csrfToken: randomBytes(32).toString("base64url"),
  createdAt: 1_000,
  expiresAt: 2_000,
  ...overrides
})
const idHash = () => randomBytes(32).toString("hex")

export const sessionStoreContract = (name: string, adapter: Layer.Layer<SessionStore, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`SessionStore contract: ${name}`, (it) => {
    it.effect("get of an unknown id is none; put then get returns the session", () =>
      Effect.gen(function* () {
        const store = yield* SessionStore
        assert.isTrue(Option.isNone(yield* store.get(idHash())))
        const id = idHash()
        const stored = session()
        yield* store.put(id, stored)
        assert.deepStrictEqual(yield* store.get(id), Option.some(stored))
      })
    )

    it.effect("put replaces; remove deletes, and removing again is harmless", () =>
      Effect.gen(function* () {
        const store = yield* SessionStore
        const id = idHash()
        yield* store.put(id, session())
        const replaced = session({ expiresAt: 9_000 })
        yield* store.put(id, replaced)
        assert.deepStrictEqual(yield* store.get(id), Option.some(replaced))
        yield* store.remove(id)
        assert.isTrue(Option.isNone(yield* store.get(id)))
        yield* store.remove(id)
      })
    )

    it.effect("sessions are independent of each other", () =>
      Effect.gen(function* () {
        const store = yield* SessionStore
        const [a, b] = [idHash(), idHash()]
        yield* store.put(a, session({ email: "a@example.org" }))
        yield* store.put(b, session({ email: "b@example.org" }))
        yield* store.remove(a)
        assert.strictEqual(Option.getOrNull(yield* store.get(b))?.email, "b@example.org")
      })
    )
  })

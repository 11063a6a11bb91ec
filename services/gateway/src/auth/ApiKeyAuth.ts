// Authenticates a request's API key against the key directory and checks the route's scope.
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import type { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { hashesEqual, hashSecret, keyIdFromHash, SECRET_PATTERN } from "@mds/shared/keys/ApiKeySecret"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { InsufficientScope, InvalidApiKey, type MissingApiKey, RevokedApiKey } from "../http/GatewayErrors.ts"
import { KeyDirectory } from "./KeyDirectory.ts"
import { KeyUsageRecorder } from "./KeyUsageRecorder.ts"
import { type CredentialSources, readPresentedKey } from "./PresentedKey.ts"

export interface Principal {
  readonly keyId: string
  readonly projectId: string
  readonly scopes: ReadonlyArray<Scope>
}

export type AuthFailure = MissingApiKey | InvalidApiKey | RevokedApiKey | InsufficientScope | EventStoreError

const unknownKey = new InvalidApiKey({ message: "The API key is not valid." })

export class ApiKeyAuth extends Context.Service<ApiKeyAuth, {
  /** The key's principal; with `scope`, also requires the key to hold that scope. */
  authenticate(sources: CredentialSources, scope: Scope | null): Effect.Effect<Principal, AuthFailure>
}>()("mds/gateway/auth/ApiKeyAuth") {
  static readonly layer = Layer.effect(
    ApiKeyAuth,
    Effect.gen(function*() {
      const pepper = yield* Config.Redacted("API_KEY_PEPPER")
      const directory = yield* KeyDirectory
      const usage = yield* KeyUsageRecorder

      // Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
      const authenticate = Effect.fnUntraced(function*(sources: CredentialSources, scope: Scope | null) {
        const presented = readPresentedKey(sources)
        if (Result.isFailure(presented)) return yield* presented.failure
        const secret = presented.success
        if (!SECRET_PATTERN.test(secret)) return yield* unknownKey
        const hash = hashSecret(Redacted.value(pepper), secret)
        const keyId = keyIdFromHash(hash)
        const found = yield* directory.lookup(keyId)
        if (Option.isNone(found) || found.value.key === null) return yield* unknownKey
        const { key, revokedAt } = found.value
        if (!hashesEqual(hash, key.hash)) return yield* unknownKey
        if (revokedAt !== null) return yield* new RevokedApiKey({ keyId })
        if (scope !== null && !key.scopes.includes(scope)) return yield* new InsufficientScope({ scope })
        yield* usage.touch({ keyId, projectId: key.projectId, at: yield* Clock.currentTimeMillis })
        return { keyId, projectId: key.projectId, scopes: key.scopes }
      })

      return ApiKeyAuth.of({ authenticate })
    })
  )
}

// Authenticates a request's API key against the key directory and checks the route's scope.
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import type { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { hashesEqual, hashSecret, keyIdFromHash, SECRET_PATTERN } from "@mds/shared/keys/ApiKeySecret"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { InsufficientScope, InvalidApiKey, type MissingApiKey, RevokedApiKey } from "../http/GatewayErrors.ts"
import type { KeyState } from "@mds/shared/domain/account/KeyDecider"
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
  /**
   * The key's principal (with `scope`, also requires the key to hold that scope), synchronously from the followed
   * directory: undefined when the key is not in it, and then `authenticate` reads the key's stream.
   */
  authenticateFromMemory(sources: CredentialSources, scope: Scope | null, now: number): Principal | AuthFailure | undefined
  /** The same verdict for a key the directory does not hold yet (created a moment ago, or the directory restarting). */
  authenticate(sources: CredentialSources, scope: Scope | null): Effect.Effect<Principal, AuthFailure>
}>()("mds/gateway/auth/ApiKeyAuth") {
  static readonly layer = Layer.effect(
    ApiKeyAuth,
    Effect.gen(function*() {
      const pepper = yield* Config.Redacted("API_KEY_PEPPER")
      const directory = yield* KeyDirectory
      const usage = yield* KeyUsageRecorder

      /** The presented secret, its hash and key id, or the failure of a missing or malformed key. */
      const present = (sources: CredentialSources) => {
        const presented = readPresentedKey(sources)
        if (Result.isFailure(presented)) return presented.failure
        const secret = presented.success
        if (!SECRET_PATTERN.test(secret)) return unknownKey
        const hash = hashSecret(Redacted.value(pepper), secret)
        return { hash, keyId: keyIdFromHash(hash) }
      }

      /** The verdict on a presented key, given the directory's state of it (none: never created). */
      const judge = (
        presented: { readonly hash: string; readonly keyId: string },
        found: KeyState | undefined,
        scope: Scope | null,
        now: number
      ): Principal | AuthFailure => {
        if (found === undefined || found.key === null) return unknownKey
        const { key, revokedAt } = found
        if (!hashesEqual(presented.hash, key.hash)) return unknownKey
        if (revokedAt !== null) return new RevokedApiKey({ keyId: presented.keyId })
        if (scope !== null && !key.scopes.includes(scope)) return new InsufficientScope({ scope })
        usage.touchNow({ keyId: presented.keyId, projectId: key.projectId, at: now })
        return { keyId: presented.keyId, projectId: key.projectId, scopes: key.scopes }
      }

      const isFailure = (outcome: Principal | AuthFailure | { readonly hash: string }): outcome is AuthFailure => "_tag" in outcome

      const authenticate = Effect.fn("ApiKeyAuth.authenticate")(function*(sources: CredentialSources, scope: Scope | null) {
        const presented = present(sources)
        if (isFailure(presented)) return yield* presented
        const found = yield* directory.lookup(presented.keyId)
        const verdict = judge(presented, Option.getOrUndefined(found), scope, yield* Clock.currentTimeMillis)
        if (isFailure(verdict)) return yield* verdict
        return verdict
      })

      const authenticateFromMemory = (sources: CredentialSources, scope: Scope | null, now: number) => {
        const presented = present(sources)
        if (isFailure(presented)) return presented
        const found = directory.peek(presented.keyId)
        return found === undefined ? undefined : judge(presented, found, scope, now)
      }

      return ApiKeyAuth.of({ authenticate, authenticateFromMemory })
    })
  )
}

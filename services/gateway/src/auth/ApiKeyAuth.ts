// Authenticates a request's API key against the key directory and checks the route's scope.
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import type { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { hashesEqual, keyIdFromHash, SECRET_PATTERN, secretHasher } from "@mds/shared/keys/ApiKeySecret"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { InsufficientScope, InvalidApiKey, type MissingApiKey, RevokedApiKey } from "./AuthErrors.ts"
import type { KeyState } from "@mds/shared/domain/account/KeyDecider"
import { RateLimitExceeded } from "../limits/LimitErrors.ts"
import { makeFailureThrottle } from "../limits/FailureThrottle.ts"
import { KeyDirectory } from "./KeyDirectory.ts"
import { KeyUsageRecorder } from "./KeyUsageRecorder.ts"
import { type CredentialSources, readPresentedKey } from "./PresentedKey.ts"

export interface Principal {
  readonly keyId: string
  readonly projectId: string
  readonly scopes: ReadonlyArray<Scope>
}

export type AuthFailure = MissingApiKey | InvalidApiKey | RevokedApiKey | InsufficientScope | RateLimitExceeded | EventStoreError

const unknownKey = new InvalidApiKey({ message: "The API key is not valid." })

export class ApiKeyAuth extends Context.Service<
  ApiKeyAuth,
  {
    /**
     * The key's principal (with `scope`, also requires the key to hold that scope), synchronously from the followed
     * directory: undefined when the key is not in it, and then `authenticate` reads the key's stream.
     */
    authenticateFromMemory(sources: CredentialSources, scope: Scope | null, now: number): Principal | AuthFailure | undefined
    /** The same verdict for a key the directory does not hold yet (created a moment ago, or the directory restarting). */
    authenticate(sources: CredentialSources, scope: Scope | null): Effect.Effect<Principal, AuthFailure>
  }
>()("mds/gateway/auth/ApiKeyAuth") {
  static readonly layer = Layer.effect(
    ApiKeyAuth,
    Effect.gen(function* () {
      const pepper = yield* Config.Redacted("API_KEY_PEPPER")
      const hashOf = secretHasher(Redacted.value(pepper))
      const directory = yield* KeyDirectory
      const usage = yield* KeyUsageRecorder
      const failuresPerMinute = yield* Config.Int("API_KEY_FAILURES_PER_MINUTE").pipe(Config.withDefault(30))
      const failures = makeFailureThrottle({ limit: failuresPerMinute, windowMs: 60_000 })

      /**
       * Counts an invalid or revoked key against the source address and the key's display prefix. Past the limit,
       * such a failure is answered 429 with Retry-After instead of 401: a scanner learns nothing and is told to wait.
       * A valid key is never throttled, so nobody can lock a key holder out by failing in their name.
       */
      const throttled = (sources: CredentialSources, failure: AuthFailure, now: number): AuthFailure => {
        if (failure._tag !== "InvalidApiKey" && failure._tag !== "RevokedApiKey") return failure
        const presented = readPresentedKey(sources)
        const prefix = Result.isSuccess(presented) ? presented.success.slice(0, "svc_live_".length + 4) : "malformed"
        const subjects = [`address:${sources.address ?? "unknown"}`, `prefix:${prefix}`]
        const retryAfterSeconds = Math.max(...subjects.map((subject) => failures.retryAfter(subject, now)))
        for (const subject of subjects) failures.record(subject, now)
        return retryAfterSeconds === 0
          ? failure
          : new RateLimitExceeded({ limit: failuresPerMinute, windowSeconds: 60, retryAfterSeconds, counted: "failed_authentications" })
      }

      /** The presented secret, its hash and key id, or the failure of a missing or malformed key. */
      const present = (sources: CredentialSources) => {
        const presented = readPresentedKey(sources)
        if (Result.isFailure(presented)) return presented.failure
        const secret = presented.success
        if (!SECRET_PATTERN.test(secret)) return unknownKey
        const hash = hashOf(secret)
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
        usage.touch({ keyId: presented.keyId, projectId: key.projectId, at: now })
        return { keyId: presented.keyId, projectId: key.projectId, scopes: key.scopes }
      }

      const isFailure = (outcome: Principal | AuthFailure | { readonly hash: string }): outcome is AuthFailure => "_tag" in outcome

      const authenticate = Effect.fn("ApiKeyAuth.authenticate")(function* (sources: CredentialSources, scope: Scope | null) {
        const now = yield* Clock.currentTimeMillis
        const presented = present(sources)
        if (isFailure(presented)) return yield* throttled(sources, presented, now)
        const found = yield* directory.lookup(presented.keyId)
        const verdict = judge(presented, Option.getOrUndefined(found), scope, now)
        if (isFailure(verdict)) return yield* throttled(sources, verdict, now)
        return verdict
      })

      const authenticateFromMemory = (sources: CredentialSources, scope: Scope | null, now: number) => {
        const presented = present(sources)
        if (isFailure(presented)) return throttled(sources, presented, now)
        const found = directory.peek(presented.keyId)
        if (found === undefined) return undefined
        const verdict = judge(presented, found, scope, now)
        return isFailure(verdict) ? throttled(sources, verdict, now) : verdict
      }

      return ApiKeyAuth.of({ authenticate, authenticateFromMemory })
    })
  )
}

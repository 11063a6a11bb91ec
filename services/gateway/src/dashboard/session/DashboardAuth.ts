// Dashboard sign-in and sessions: scrypt-verified passwords, random session ids kept only as a hash server-side.
import { createHash, randomBytes } from "node:crypto"
import { EventStore, type EventStoreError } from "@mds/shared/eventstore/EventStore"
import { normalizeEmail } from "@mds/shared/ids/UserId"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { DECOY_PASSWORD_HASH, verifyPassword } from "@mds/shared/keys/PasswordHash"
import { Clock, Config, Context, Effect, Layer, Option, Redacted, Semaphore } from "effect"
import { loadUser } from "../../accounts/AccountCommands.ts"
import { DashboardConfig } from "../DashboardConfig.ts"
import { InvalidCredentials, SignInThrottled } from "../DashboardErrors.ts"
import { makeFailureThrottle } from "../../limits/FailureThrottle.ts"
import { cookieName, parseCookies, serializeCookie } from "./Cookies.ts"
import { issueLoginToken, LOGIN_TOKEN_MS, verifyLoginToken } from "./LoginToken.ts"
import { type Session, SessionStore } from "./SessionStore.ts"

export const randomToken = (): string => randomBytes(32).toString("base64url")
/** The store key of a session: whoever reads the store cannot turn it back into a cookie. */
export const sessionIdHash = (sessionId: string): string => createHash("sha256").update(sessionId).digest("hex")

export { tokensEqual } from "./TokenCompare.ts"

/** At most this many scrypt verifications at once (32 MiB each): sign-in floods cannot exhaust memory. */
const CONCURRENT_VERIFICATIONS = 2

export interface CurrentSession {
  readonly idHash: string
  readonly session: Session
}

export class DashboardAuth extends Context.Service<
  DashboardAuth,
  {
    readonly sessionCookie: string
    readonly loginCookie: string
    /** Checks the credentials; on success a new session (a fresh id: no fixation) and its Set-Cookie value. */
    signIn(
      email: string,
      password: string,
      address?: string
    ): Effect.Effect<{ readonly setCookie: string }, InvalidCredentials | SignInThrottled | EventStoreError | ReadModelError>
    /** The session the request's cookies carry, if it exists and has not expired. */
    current(cookieHeader: string | ReadonlyArray<string> | undefined): Effect.Effect<Option.Option<CurrentSession>, ReadModelError>
    signOut(idHash: string): Effect.Effect<void, ReadModelError>
    readonly clearSessionCookie: string
    /** A signed pre-session token for the sign-in form (cookie and hidden field carry it; LoginToken.ts). */
    loginToken(): { readonly token: string; readonly setCookie: string }
    /** Whether a sign-in form's token (field) matches the request's login cookie and is one this gateway issued. */
    loginTokenValid(cookieHeader: string | ReadonlyArray<string> | undefined, fieldToken: string): boolean
    readonly clearLoginCookie: string
  }
>()("mds/gateway/dashboard/DashboardAuth") {
  static readonly layer = Layer.effect(
    DashboardAuth,
    Effect.gen(function* () {
      const config = yield* DashboardConfig
      const sessions = yield* SessionStore
      const store = yield* EventStore
      const verifications = yield* Semaphore.make(CONCURRENT_VERIFICATIONS)
      // Failed sign-ins per account and per source address, in 15-minute windows. Checked before scrypt runs, so a
      // throttled flood costs no hashing; an account's limit can lock its owner out for the rest of the window
      // (the usual price of per-account limits), which is why it stays modest and the window short.
      const windowMs = 15 * 60_000
      const perAccount = makeFailureThrottle({
        limit: yield* Config.Int("SIGN_IN_FAILURES_PER_ACCOUNT").pipe(Config.withDefault(10)),
        windowMs
      })
      const perAddress = makeFailureThrottle({
        limit: yield* Config.Int("SIGN_IN_FAILURES_PER_ADDRESS").pipe(Config.withDefault(100)),
        windowMs
      })
      const secure = config.secureCookies
      const sessionCookie = cookieName("mds_session", secure)
      const loginCookie = cookieName("mds_login", secure)
      // The gateways' own secret signs the sign-in form's token; derived, so the pepper itself never signs anything.
      const loginKey = createHash("sha256")
        .update(`mds-login-token:${Redacted.value(yield* Config.Redacted("API_KEY_PEPPER"))}`)
        .digest("hex")

      const signIn = Effect.fn("DashboardAuth.signIn")(function* (email: string, password: string, address?: string) {
        const account = `account:${normalizeEmail(email)}`
        const source = `address:${address ?? "unknown"}`
        const started = yield* Clock.currentTimeMillis
        const wait = Math.max(perAccount.retryAfter(account, started), perAddress.retryAfter(source, started))
        if (wait > 0) return yield* new SignInThrottled({ retryAfterSeconds: wait })
        const state = yield* loadUser(normalizeEmail(email)).pipe(Effect.provideService(EventStore, store))
        const user = state.user
        // An unknown email costs the same scrypt work as a wrong password: timing does not reveal accounts.
        const stored = state.passwordHash ?? DECOY_PASSWORD_HASH
        const ok = yield* verifications.withPermits(1)(Effect.promise(() => verifyPassword(password, stored)))
        const now = yield* Clock.currentTimeMillis
        if (!ok || user === null) {
          perAccount.record(account, now)
          perAddress.record(source, now)
          return yield* new InvalidCredentials()
        }
        const sessionId = randomToken()
        yield* sessions.put(sessionIdHash(sessionId), {
          userId: user.userId,
          email: user.email,
          csrfToken: randomToken(),
          createdAt: now,
          expiresAt: now + config.sessionTtlMs
        })
        return { setCookie: serializeCookie(sessionCookie, sessionId, { secure, maxAgeSeconds: config.sessionTtlMs / 1000 }) }
      })

      const current = Effect.fn("DashboardAuth.current")(function* (cookieHeader: string | ReadonlyArray<string> | undefined) {
        const sessionId = parseCookies(cookieHeader)[sessionCookie]
        if (sessionId === undefined || sessionId.length < 32 || sessionId.length > 128) return Option.none<CurrentSession>()
        const idHash = sessionIdHash(sessionId)
        const found = yield* sessions.get(idHash)
        if (Option.isNone(found)) return Option.none<CurrentSession>()
        if (found.value.expiresAt <= (yield* Clock.currentTimeMillis)) {
          yield* sessions.remove(idHash)
          return Option.none<CurrentSession>()
        }
        return Option.some({ idHash, session: found.value })
      })

      return DashboardAuth.of({
        sessionCookie,
        loginCookie,
        signIn,
        current,
        signOut: (idHash) => sessions.remove(idHash),
        clearSessionCookie: serializeCookie(sessionCookie, "", { secure, maxAgeSeconds: 0 }),
        loginToken: () => {
          const token = issueLoginToken(loginKey, Date.now())
          return { token, setCookie: serializeCookie(loginCookie, token, { secure, maxAgeSeconds: LOGIN_TOKEN_MS / 1000 }) }
        },
        loginTokenValid: (cookieHeader, fieldToken) =>
          verifyLoginToken(loginKey, parseCookies(cookieHeader)[loginCookie] ?? "", fieldToken, Date.now()),
        clearLoginCookie: serializeCookie(loginCookie, "", { secure, maxAgeSeconds: 0 })
      })
    })
  )
}

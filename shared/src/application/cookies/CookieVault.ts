// Projects' cookie files per platform, encrypted at rest (AES-256-GCM, COOKIES_ENCRYPTION_KEY) in the NATS KV bucket
// mds_cookie_jars; every change is recorded as metadata on mds.cookies.<projectId>.<platform>, never the cookies.
import type { KV } from "@nats-io/kv"
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { cookieSlot, openCookies, sealCookies } from "./CookieCipher.ts"
import type { CookieJarEvent } from "../../domain/cookies/CookieJarEvent.ts"
import { type CookieJarInfo, cookieJarList } from "../../domain/cookies/CookieJars.ts"
import { summarizeCookieFile, withNetscapeHeader } from "../../domain/cookies/NetscapeCookies.ts"
import { currentCookieJars, recordCookieJarChange } from "./CookieJarFacts.ts"
import { EventStore } from "../../eventstore/EventStore.ts"
import { openKvBucket } from "../../readmodel/kv/KvBucket.ts"

export const COOKIE_JARS_BUCKET = "mds_cookie_jars"

export class CookieFileInvalid extends Schema.TaggedError<CookieFileInvalid>()("CookieFileInvalid", { message: Schema.String }) {}
export class CookiesNotConfigured extends Schema.TaggedError<CookiesNotConfigured>()("CookiesNotConfigured", {}) {}
export class CookieVaultError extends Schema.TaggedError<CookieVaultError>()("CookieVaultError", { message: Schema.String }) {}

const vaultError = (operation: string) => (cause: unknown) =>
  new CookieVaultError({ message: `${operation}: ${cause instanceof Error ? cause.message : String(cause)}` })

const keyOf = (projectId: string, platform: string) => `${projectId}.${platform}`

export class CookieVault extends Context.Service<
  CookieVault,
  {
    /** Validates, encrypts and stores the file, replacing the platform's previous one. */
    store(
      projectId: string,
      platform: string,
      text: string,
      change: "uploaded" | "rotated"
    ): Effect.Effect<CookieJarInfo, CookieFileInvalid | CookiesNotConfigured | CookieVaultError>
    /** The file in clear, for one run; none when the project has none for the platform (or cookies are not configured). */
    load(projectId: string, platform: string): Effect.Effect<Option.Option<string>, CookieVaultError>
    remove(projectId: string, platform: string): Effect.Effect<boolean, CookieVaultError>
    /** The metadata of every platform's file of the project. */
    list(projectId: string): Effect.Effect<ReadonlyArray<CookieJarInfo>, CookieVaultError>
  }
>()("mds/cookies/CookieVault") {
  /** 64 hex characters (32 bytes); setup.sh generates one into .data/secrets.env. Without it cookies cannot be stored. */
  static readonly config = Config.Redacted("COOKIES_ENCRYPTION_KEY").pipe(Config.option)

  static readonly layer = Layer.effect(
    CookieVault,
    Effect.gen(function* () {
      const configured = yield* CookieVault.config
      // An empty value (a compose default) means not configured.
      const key = Option.map(
        Option.filter(configured, (secret) => Redacted.value(secret).trim() !== ""),
        (secret) => Buffer.from(Redacted.value(secret).trim(), "hex")
      )
      if (Option.isSome(key) && key.value.length !== 32) {
        return yield* Effect.die(new Error("COOKIES_ENCRYPTION_KEY must be 64 hex characters (32 bytes)"))
      }
      const events = yield* EventStore
      const kv: KV = yield* openKvBucket(COOKIE_JARS_BUCKET, 0).pipe(Effect.mapError(vaultError("open the cookie vault")))

      const record = (event: CookieJarEvent) =>
        recordCookieJarChange(event).pipe(
          Effect.provideService(EventStore, events),
          Effect.mapError(vaultError("record the cookie change"))
        )

      const store = Effect.fn("CookieVault.store")(function* (
        projectId: string,
        platform: string,
        text: string,
        change: "uploaded" | "rotated"
      ) {
        if (Option.isNone(key)) return yield* new CookiesNotConfigured()
        const summary = summarizeCookieFile(text)
        if (typeof summary === "string") return yield* new CookieFileInvalid({ message: summary })
        const sealed = sealCookies(key.value, cookieSlot(projectId, platform), withNetscapeHeader(text))
        yield* Effect.tryPromise({ try: () => kv.put(keyOf(projectId, platform), sealed), catch: vaultError("store cookies") })
        const at = Date.now()
        const facts = {
          v: 1 as const,
          projectId,
          platform,
          domains: summary.domains,
          cookieCount: summary.cookieCount,
          expiresAt: summary.expiresAt,
          at
        }
        yield* record(change === "uploaded" ? { _tag: "CookiesUploaded", ...facts } : { _tag: "CookiesRotated", ...facts })
        return { platform, domains: summary.domains, cookieCount: summary.cookieCount, expiresAt: summary.expiresAt, updatedAt: at, change }
      })

      const load = Effect.fn("CookieVault.load")(function* (projectId: string, platform: string) {
        if (Option.isNone(key)) return Option.none<string>()
        const entry = yield* Effect.tryPromise({ try: () => kv.get(keyOf(projectId, platform)), catch: vaultError("load cookies") })
        if (entry === null || entry.operation !== "PUT" || entry.value.length === 0) return Option.none<string>()
        const opened = openCookies(key.value, cookieSlot(projectId, platform), entry.value)
        if (opened === null) {
          // Another key (rotated without re-uploading) or tampering: the run goes without cookies rather than fail.
          yield* Effect.logWarning("stored cookies could not be decrypted; ignored", { projectId, platform })
          return Option.none<string>()
        }
        return Option.some(opened)
      })

      const remove = Effect.fn("CookieVault.remove")(function* (projectId: string, platform: string) {
        const entry = yield* Effect.tryPromise({ try: () => kv.get(keyOf(projectId, platform)), catch: vaultError("load cookies") })
        if (entry === null || entry.operation !== "PUT") return false
        yield* Effect.tryPromise({ try: () => kv.purge(keyOf(projectId, platform)), catch: vaultError("remove cookies") })
        yield* record({ _tag: "CookiesRemoved", v: 1, projectId, platform, at: Date.now() })
        return true
      })

      const list = Effect.fn("CookieVault.list")(function* (projectId: string) {
        const { state } = yield* currentCookieJars(projectId).pipe(
          Effect.provideService(EventStore, events),
          Effect.mapError(vaultError("list cookies"))
        )
        return cookieJarList(state)
      })

      return CookieVault.of({ store, load, remove, list })
    })
  )
}

// Gives one yt-dlp run its own copy of the project's cookies for the URL's platform, and keeps what the run wrote back.
import { randomBytes } from "node:crypto"
import { readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer, Option, type Scope } from "effect"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { cookieLinesOf } from "@mds/shared/domain/cookies/NetscapeCookies"
import { cookiePlatformOfUrl } from "@mds/shared/domain/platform/cookiePlatform"
import type { YtDlpFlags } from "../ytdlp/YtDlpFlags.ts"
import { CookieCopies } from "./CookieCopies.ts"

export interface RunCookieFlags {
  /** `--cookies <file>` when the project has cookies for the URL's platform, else nothing. */
  readonly flags: YtDlpFlags
  readonly used: boolean
}

export class RunCookies extends Context.Service<
  RunCookies,
  {
    /**
     * The copy lives in this extractor's folder of CookieCopies (readable by the service user alone; swept once the
     * extractor is gone, even after kill -9) until the scope closes; then, if yt-dlp rewrote it
     * with other cookies (a platform rotating its session), those replace the stored file, and the copy is deleted.
     * Never fails the run: a vault that cannot be read means a run without cookies, logged. The platform is the one
     * the URL's host classifies as (cookiePlatformOfUrl), never the extractor that handled a media: resolve and
     * download of one URL find the same file, under the id it was uploaded with.
     */
    forRun(projectId: string, url: string): Effect.Effect<RunCookieFlags, never, Scope.Scope>
  }
>()("mds/extractor/RunCookies") {
  static readonly layer = Layer.effect(
    RunCookies,
    Effect.gen(function* () {
      const vault = yield* CookieVault
      const { dir } = yield* CookieCopies

      const keepRotated = (projectId: string, platform: string, path: string, original: string) =>
        Effect.gen(function* () {
          const after = yield* Effect.promise(() => readFile(path, "utf8").catch(() => null))
          if (after === null || cookieLinesOf(after) === cookieLinesOf(original) || cookieLinesOf(after) === "") return
          const stored = yield* vault.store(projectId, platform, after, "rotated")
          yield* Effect.logInfo("rotated cookies kept", { projectId, platform, cookies: stored.cookieCount })
        }).pipe(
          Effect.catchCause((cause) => Effect.logWarning("rotated cookies not kept", cause)),
          Effect.ensuring(Effect.promise(() => rm(path, { force: true })))
        )

      const forRun = (projectId: string, url: string) =>
        Effect.gen(function* () {
          const platform = cookiePlatformOfUrl(url)
          if (platform === null) return { flags: {}, used: false }
          const text = yield* vault
            .load(projectId, platform)
            .pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning("cookies not loaded; the run goes without", cause).pipe(Effect.as(Option.none<string>()))
              )
            )
          if (Option.isNone(text)) return { flags: {}, used: false }
          const path = join(dir, `cookies-${randomBytes(6).toString("hex")}.txt`)
          yield* Effect.acquireRelease(
            Effect.promise(() => writeFile(path, text.value, { mode: 0o600 })),
            () => keepRotated(projectId, platform, path, text.value)
          )
          return { flags: { cookies: path }, used: true }
        })

      return RunCookies.of({ forRun })
    })
  )
}

// Runs yt-dlp with browser impersonation where a platform needs it: forced by configuration, or after a challenge.
import { Config, Context, Effect, Layer, Metric } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { countOne } from "@mds/shared/observability/Metrics"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import type { YtDlpFailed } from "../ytdlp/YtDlpProcess.ts"
import type { YtDlpFlags } from "../ytdlp/YtDlpFlags.ts"
import { failureMessage } from "../ytdlp/classifyFailure.ts"
import { impersonationFlags, isAntiBotChallenge } from "./AntiBotChallenge.ts"

export const antiBotChallenges = Metric.counter("mds_antibot_challenges_total", {
  description: "yt-dlp runs that met an anti-bot challenge, by platform and whether they already impersonated a browser.",
  incremental: true
})

export class Impersonation extends Context.Service<
  Impersonation,
  {
    /**
     * Runs `attempt` with impersonation flags when the platform needs them; else plainly, and once more with them when
     * the platform answered with a challenge (the platform is then remembered for IMPERSONATION_REMEMBER_SECONDS).
     */
    run<A, E, R>(
      platform: string,
      attempt: (flags: YtDlpFlags) => Effect.Effect<A, E | YtDlpFailed, R>
    ): Effect.Effect<A, E | YtDlpFailed, R>
    /** Whether new runs for the platform impersonate a browser from the start. */
    needs(platform: string): boolean
  }
>()("mds/extractor/Impersonation") {
  static readonly config = Config.all({
    forced: Config.String("IMPERSONATE_PLATFORMS").pipe(
      Config.withDefault(""),
      Config.map((list) => new Set(list.split(/[\s,]+/).filter((id) => id !== "")))
    ),
    target: Config.String("IMPERSONATE_TARGET").pipe(Config.withDefault("chrome")),
    rememberMs: secondsAsMs("IMPERSONATION_REMEMBER_SECONDS", 6 * 3600)
  })

  static readonly layer = Layer.effect(
    Impersonation,
    Effect.gen(function* () {
      const { forced, target, rememberMs } = yield* Impersonation.config
      const outcomes = yield* PlatformOutcomes
      const flags = impersonationFlags(target)
      /** Platform id -> until when it is impersonated. One extractor's memory: each learns from its own runs. */
      const remembered = new Map<string, number>()
      const needs = (platform: string) => forced.has(platform) || (remembered.get(platform) ?? 0) > Date.now()

      const isYtDlpFailed = (error: unknown): error is YtDlpFailed =>
        typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "YtDlpFailed"

      const run = <A, E, R>(platform: string, attempt: (flags: YtDlpFlags) => Effect.Effect<A, E | YtDlpFailed, R>) => {
        const impersonating = needs(platform)
        return attempt(impersonating ? flags : {}).pipe(
          Effect.catchIf(
            (error): error is YtDlpFailed => isYtDlpFailed(error) && isAntiBotChallenge(error.stderr),
            (error) =>
              Effect.gen(function* () {
                yield* countOne(antiBotChallenges, { platform, impersonating: String(impersonating) })
                // A challenge is the platform blocking us: it counts towards the breaker even when the retry passes.
                yield* outcomes.record(platform, {
                  code: "extraction_failed",
                  message: `anti-bot challenge: ${failureMessage(error.stderr)}`
                })
                if (impersonating) return yield* Effect.fail(error)
                remembered.set(platform, Date.now() + rememberMs)
                yield* Effect.logWarning("anti-bot challenge; retrying with browser impersonation", { platform, target })
                return yield* attempt(flags)
              })
          )
        )
      }

      return Impersonation.of({ run, needs })
    })
  )
}

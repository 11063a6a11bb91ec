// Proves a freshly installed yt-dlp works before any job uses it: a local file end to end, then the operator's canaries.
import { Context, Effect, Layer } from "effect"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { egressProxy } from "../egress/EgressProxy.ts"
import { UpstreamProxies } from "../egress/UpstreamProxies.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { failureMessage } from "../ytdlp/classifyFailure.ts"
import { makeYtDlp } from "../ytdlp/YtDlpProcess.ts"
import { baseFlags } from "../ytdlp/YtDlpFlags.ts"
import type { Release } from "../ytdlp/ActiveRelease.ts"
import { localCheck } from "./LocalReleaseCheck.ts"
import { ReleaseCheckFailed } from "./ReleaseCheckFailed.ts"
import { ReleaseConfig } from "./ReleaseConfig.ts"

export class ReleaseSelfCheck extends Context.Service<
  ReleaseSelfCheck,
  {
    check(release: Release): Effect.Effect<void, ReleaseCheckFailed>
  }
>()("mds/extractor/ReleaseSelfCheck") {
  static readonly layer = Layer.effect(
    ReleaseSelfCheck,
    Effect.gen(function* () {
      const config = yield* ReleaseConfig
      const extractor = yield* ExtractorConfig
      const policy = yield* EgressPolicy
      const confinement = yield* Confinement
      const upstreams = yield* UpstreamProxies

      const canary = Effect.fn("ReleaseSelfCheck.canary")(function* (release: Release, url: string) {
        // A canary is any page: it goes the way of platform traffic without a proxy of its own (UPSTREAM_PROXY).
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(""))
        yield* makeYtDlp(release.path, confinement)
          .run(url, { ...baseFlags(proxy.url, extractor.ffmpegPath), dumpSingleJson: true })
          .pipe(Effect.mapError((error) => new ReleaseCheckFailed({ message: `canary ${url} failed: ${failureMessage(error.stderr)}` })))
      }, Effect.scoped)

      const check = (release: Release) =>
        Effect.gen(function* () {
          yield* localCheck(release, confinement)
          for (const url of config.canaryUrls) yield* canary(release, url)
        }).pipe(
          Effect.timeoutOrElse({
            duration: config.checkTimeoutMs,
            orElse: () => Effect.fail(new ReleaseCheckFailed({ message: `the check took longer than ${config.checkTimeoutMs / 1000} s` }))
          }),
          Effect.withSpan("ReleaseSelfCheck.check")
        )

      return ReleaseSelfCheck.of({ check })
    })
  )
}

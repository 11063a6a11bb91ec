// Extract: yt-dlp -J on the URL through the run's egress proxy with the project's cookies, paced and impersonating
// where the platform needs it; the info it prints, decoded.
import { Context, Effect, Layer } from "effect"
import { countOne, extractionFailures, timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { Impersonation } from "../antibot/Impersonation.ts"
import type { EgressProxy } from "../egress/EgressProxy.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { classifyFailure, failureMessage, refusalMessage } from "../ytdlp/classifyFailure.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { baseFlags, type YtDlpFlags } from "../ytdlp/YtDlpFlags.ts"
import { decodeYtDlpInfo } from "../ytdlp/YtDlpInfo.ts"
import { failWith } from "./ResolveFailure.ts"

export class ExtractInfo extends Context.Service<ExtractInfo>()("mds/extractor/ExtractInfo", {
  make: Effect.gen(function* () {
    const ytdlp = yield* YtDlp
    const config = yield* ExtractorConfig
    const impersonation = yield* Impersonation
    const pacing = yield* PlatformPacing

    /** `runId` names the run to the platform's pacing; `stdout` is the info as yt-dlp printed it. */
    const extract = Effect.fn("ExtractInfo.extract")(function* (
      url: URL,
      platform: string,
      proxy: EgressProxy,
      cookieFlags: YtDlpFlags,
      playlist: boolean,
      runId: string
    ) {
      // Extension: a playlist resolve reads the playlist's entries flat (no extraction per entry), up to the cap.
      const playlistFlags = playlist ? { yesPlaylist: true, flatPlaylist: true, playlistEnd: config.playlistMaxEntries } : {}
      const dumped = impersonation.run(platform, (impersonate) =>
        pacing.start(platform, runId).pipe(
          Effect.andThen(
            ytdlp.run(url.href, {
              ...baseFlags(proxy.url, config.ffmpegPath),
              dumpSingleJson: true,
              // Extension: an upcoming stream has no formats yet; its info (live_status, release_timestamp) is the answer.
              ignoreNoFormatsError: true,
              ...cookieFlags,
              ...impersonate,
              ...playlistFlags
            })
          )
        )
      )
      const run = yield* timed(ytDlpDuration, { operation: "resolve", platform }, dumped).pipe(
        Effect.mapError((error) => {
          const code = classifyFailure(error.stderr, proxy.refusals.length > 0)
          if (code === "url_not_allowed") return failWith(code, refusalMessage(proxy.refusals, error.stderr))
          if (code === "format_unavailable" || code === "failed" || code === "transient" || code === "live_not_started")
            return failWith("extraction_failed", failureMessage(error.stderr))
          return failWith(code, failureMessage(error.stderr))
        }),
        Effect.tapError((failure) => countOne(extractionFailures, { operation: "resolve", platform, code: failure.code }))
      )
      const info = yield* decodeYtDlpInfo(run.stdout).pipe(
        Effect.mapError(() => failWith("extraction_failed", "the extractor returned unreadable metadata"))
      )
      return { info, stdout: run.stdout }
    })

    return { extract }
  })
}) {
  static readonly layer = Layer.effect(ExtractInfo, ExtractInfo.make)
}

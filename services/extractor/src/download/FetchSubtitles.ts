// Extension: fetches one subtitle language of the media as a WebVTT file (format subtitles_<language>), in one paced
// yt-dlp run through the egress proxy with the project's cookies.
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { RunAccess } from "../egress/RunAccess.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { classifyFailure, failureMessage, refusedHopMessage } from "../ytdlp/classifyFailure.ts"
import { parseSubtitleTitle, subtitleFileFlags } from "../ytdlp/SubtitleFlags.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { jobFailure } from "./DownloadFailed.ts"
import { allowedJobUrl, withinDownloadTimeout } from "./FetchGuards.ts"
import type { FetchOptions } from "./FetchOptions.ts"

export class FetchSubtitles extends Context.Service<FetchSubtitles>()("mds/extractor/FetchSubtitles", {
  make: Effect.gen(function* () {
    const policy = yield* EgressPolicy
    const ytdlp = yield* YtDlp
    const config = yield* ExtractorConfig
    const access = yield* RunAccess
    const pacing = yield* PlatformPacing

    const fetch = Effect.fn("FetchSubtitles.fetch")(function* (command: DownloadMedia, language: string, options: FetchOptions) {
      const url = yield* allowedJobUrl(policy, command.url)
      const { proxy, cookies } = yield* access.open(command.platform, options.projectId, command.url)
      let title: string | null = null
      const onLine = (line: string) => {
        title = parseSubtitleTitle(line) ?? title
      }
      yield* pacing.start(command.platform, command.jobId).pipe(
        Effect.andThen(
          ytdlp.run(
            url.href,
            { ...subtitleFileFlags(language, options.workDir, proxy.url, config.ffmpegPath), ...cookies.flags },
            { cwd: options.workDir, onLine }
          )
        ),
        Effect.mapError((error) => {
          const code = classifyFailure(error.stderr, proxy.refusals.length > 0)
          if (code === "url_not_allowed") return jobFailure(code, refusedHopMessage(proxy.refusals))
          if (code === "transient" || code === "failed")
            return jobFailure("download_failed", failureMessage(error.stderr), code === "transient")
          return jobFailure(code, failureMessage(error.stderr))
        }),
        withinDownloadTimeout(config.downloadTimeoutMs)
      )
      // yt-dlp skips a language the media lacks without failing: the file's absence says so.
      const filepath = join(options.workDir, `media.${language}.vtt`)
      const size = yield* Effect.promise(() =>
        stat(filepath).then(
          (s) => s.size,
          () => null
        )
      )
      if (size === null) return yield* jobFailure("subtitles_unavailable", `The media has no subtitles in ${language}.`)
      options.onPercent(100)
      const named = title as string | null
      return { filepath, title: `${named ?? "subtitles"}.${language}`, ext: "vtt" }
    }, Effect.scoped)

    return { fetch }
  })
}) {
  static readonly layer = Layer.effect(FetchSubtitles, FetchSubtitles.make)
}

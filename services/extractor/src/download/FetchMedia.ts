// One yt-dlp run of a job through the egress proxy: progress, limits judged while it runs, transient failures retried.
import { stat, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Context, Deferred, Effect, Layer, Option, Schedule, Schema } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { countOne, reextractions, timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { Impersonation } from "../antibot/Impersonation.ts"
import { RunCookies } from "../cookies/RunCookies.ts"
import { egressProxy } from "../egress/EgressProxy.ts"
import { UpstreamProxies } from "../egress/UpstreamProxies.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { ResolvedInfoStore } from "../resolve/info/ResolvedInfoStore.ts"
import { classifyFailure, failureMessage, refusalMessage } from "../ytdlp/classifyFailure.ts"
import { parseCurlMeterLine } from "../ytdlp/CurlMeterLine.ts"
import { type AnnouncedMedia, parseInfoLine } from "../ytdlp/InfoLine.ts"
import { parseProgressBytes, parseProgressLine } from "../ytdlp/ProgressLine.ts"
import { loadInfoFlags } from "../ytdlp/LoadInfoFlags.ts"
import { type DownloadedFile, parseResultLine } from "../ytdlp/ResultLine.ts"
import { storedUrlRefused } from "../ytdlp/storedUrlRefused.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { downloadFlags } from "../ytdlp/YtDlpFlags.ts"
import { clipDuration, sectionFlags } from "../ytdlp/SectionFlags.ts"
import { presetFlags } from "../ytdlp/PresetFlags.ts"
import { embedSubtitleFlags, parseSubtitleTitle, subtitleFileFlags } from "../ytdlp/SubtitleFlags.ts"
import { OutputConversion } from "../output/OutputConversion.ts"
import { sectionOutOfRange } from "@mds/shared/domain/job/DownloadOptions"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import { needsFileProbe } from "./FileProbeNeed.ts"
import { type JobLimits, limitBreach, type MediaFacts } from "./JobLimits.ts"

export interface FetchOptions {
  readonly workDir: string
  /** The job's project: its cookies for the platform, if any, go with every run. */
  readonly projectId: string
  /** HLS/DASH fragments a run fetches at once (yt-dlp's --concurrent-fragments). */
  readonly concurrentFragments: number
  /** Called with the latest download percent (0-100) whenever yt-dlp reports one. */
  readonly onPercent: (percent: number) => void
}

/** Where a run takes the media from: the page (a full extraction) or the info JSON the resolve stored. */
type Source = { readonly _tag: "Page"; readonly url: URL } | { readonly _tag: "StoredInfo"; readonly infoPath: string }

/** A run from stored info whose media URLs were refused (expired or re-signed): only a fresh extraction can help. */
class StoredUrlsRefused extends Schema.TaggedError<StoredUrlsRefused>()("StoredUrlsRefused", {
  message: Schema.String
}) {}

const INFO_FILE = "resolved.info.json"

export class FetchMedia extends Context.Service<
  FetchMedia,
  {
    /** Downloads into `workDir` within the job's limits; the finished file, or the failure that ends the job. */
    fetch(command: DownloadMedia, spec: FormatSpec, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
    /** Extension: one subtitle language as a WebVTT file (format subtitles_<language>). */
    fetchSubtitles(command: DownloadMedia, language: string, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
  }
>()("mds/extractor/FetchMedia") {
  static readonly layer = Layer.effect(
    FetchMedia,
    Effect.gen(function* () {
      const policy = yield* EgressPolicy
      const ytdlp = yield* YtDlp
      const ffmpeg = yield* Ffmpeg
      const conversion = yield* OutputConversion
      const config = yield* ExtractorConfig
      const impersonation = yield* Impersonation
      const upstreams = yield* UpstreamProxies
      const runCookies = yield* RunCookies
      const infoStore = yield* ResolvedInfoStore
      const pacing = yield* PlatformPacing
      const serverLimits: JobLimits = { maxDurationSeconds: config.maxDurationSeconds, maxFileBytes: config.maxFileBytes }

      const runOnce = Effect.fn("FetchMedia.runOnce")(function* (
        source: Source,
        spec: FormatSpec,
        options: FetchOptions,
        command: DownloadMedia
      ) {
        const { platform } = command
        const section = command.options?.section
        const limits: JobLimits = { ...serverLimits, quotaBytesLeft: command.quotaBytesLeft ?? null }
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(platform))
        // Completed from the line callback when a limit is crossed; racing it against yt-dlp kills the run at once.
        const overLimit = Deferred.makeUnsafe<never, DownloadFailed>()
        let announced: AnnouncedMedia | null = null
        let result: DownloadedFile | null = null
        const judge = (facts: MediaFacts) => {
          const mediaDuration = facts.durationSeconds ?? null
          const outside = section === undefined ? null : sectionOutOfRange(section, mediaDuration)
          if (outside !== null) Deferred.doneUnsafe(overLimit, Effect.fail(jobFailure("section_out_of_range", outside)))
          // A clip is judged by its own length, not the whole media's.
          const breach = limitBreach(limits, { ...facts, durationSeconds: clipDuration(section, mediaDuration) })
          if (breach !== null) Deferred.doneUnsafe(overLimit, Effect.fail(jobFailure(breach.code, breach.message)))
        }
        const onLine = (line: string) => {
          const percent = parseProgressLine(line)
          if (percent !== null) options.onPercent(percent)
          const bytes = parseProgressBytes(line, options.concurrentFragments)
          if (bytes !== null) judge({ bytes })
          const info = parseInfoLine(line)
          if (Option.isSome(info)) {
            announced = info.value
            judge(info.value)
          }
          const parsed = parseResultLine(line)
          if (Option.isSome(parsed)) result = parsed.value
        }
        // Files curl downloads report no progress lines on stdout; curl's own meter on stderr says as much, once a second.
        const onErrorLine = (line: string) => {
          const meter = parseCurlMeterLine(line)
          if (meter === null) return
          if (meter.percent !== null) options.onPercent(meter.percent)
          judge({ bytes: meter.bytes })
        }

        const cookies = yield* runCookies.forRun(options.projectId, command.url)
        const flags = {
          ...downloadFlags(spec, options.workDir, proxy.url, config.ffmpegPath, options.concurrentFragments),
          ...cookies.flags,
          ...sectionFlags(section),
          ...presetFlags(spec, command.options),
          ...(spec.kind === "video" ? embedSubtitleFlags(command.options?.subtitles) : {})
        }
        // A stored info JSON already holds the formats an impersonated resolve found; the page is extracted again only
        // for a job without one, and that run impersonates when the platform needs it.
        // Every start takes a start key of the platform's pacing (this run's retries and the anti-bot retry included).
        const ran = impersonation.run(platform, (impersonate) =>
          pacing
            .start(platform, command.jobId)
            .pipe(
              Effect.andThen(
                source._tag === "Page"
                  ? ytdlp.run(source.url.href, { ...flags, ...impersonate }, { cwd: options.workDir, onLine, onErrorLine })
                  : ytdlp.run(
                      "",
                      { ...flags, ...loadInfoFlags(source.infoPath), ...impersonate },
                      { cwd: options.workDir, onLine, onErrorLine }
                    )
              )
            )
        )
        yield* timed(ytDlpDuration, { operation: "download", platform }, ran).pipe(
          Effect.mapError((error): DownloadFailed | StoredUrlsRefused => {
            const refusedByProxy = proxy.refusals.length > 0
            if (source._tag === "StoredInfo" && !refusedByProxy && storedUrlRefused(error.stderr)) {
              return new StoredUrlsRefused({ message: failureMessage(error.stderr) })
            }
            const code = classifyFailure(error.stderr, refusedByProxy)
            switch (code) {
              case "url_not_allowed":
                return jobFailure(code, refusalMessage(proxy.refusals, error.stderr))
              case "transient":
                return jobFailure("download_failed", failureMessage(error.stderr), true)
              case "failed":
                return jobFailure("download_failed", failureMessage(error.stderr))
              default:
                return jobFailure(code, failureMessage(error.stderr))
            }
          }),
          Effect.raceFirst(Deferred.await(overLimit))
        )
        // A hop refused during a run that still succeeded (an init section or a key yt-dlp went on without) fails the
        // job too: what was made without it is not the media the client asked for.
        if (proxy.refusals.length > 0) {
          return yield* jobFailure("url_not_allowed", `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`)
        }
        const downloaded = result as DownloadedFile | null
        if (downloaded === null) return yield* jobFailure("download_failed", "the extractor reported no output file")
        // Output presets: the codec, container or silence the job asked for, when the platform's file is not so.
        const converted =
          spec.kind === "video"
            ? yield* conversion
                .convert(downloaded, command.options)
                .pipe(Effect.mapError((error) => jobFailure("internal_error", `converting the file failed: ${error.message}`)))
            : { file: downloaded, subtitleTracks: null }
        const produced = converted.file
        const wantedSubtitles = command.options?.subtitles ?? []
        if (converted.subtitleTracks !== null && converted.subtitleTracks < wantedSubtitles.length) {
          return yield* jobFailure(
            "subtitles_unavailable",
            `The media has no subtitles in some of ${wantedSubtitles.join(", ")} (found ${converted.subtitleTracks} of ${wantedSubtitles.length}).`
          )
        }
        // The finished file is judged too: conversion changes sizes, and direct files announce no duration.
        const size = yield* Effect.promise(() =>
          stat(produced.filepath).then(
            (s) => s.size,
            () => null
          )
        )
        // A direct file says nothing of its streams until it is here: `b` then takes an audio file for video_best.
        const heard = announced as AnnouncedMedia | null
        const facts = needsFileProbe(spec, heard, limits) ? yield* ffmpeg.probeFile(produced.filepath).pipe(Effect.option) : Option.none()
        const lacking = Option.isNone(facts)
          ? null
          : spec.kind === "video" && !facts.value.hasVideo
            ? "video"
            : spec.kind === "audio" && !facts.value.hasAudio
              ? "audio"
              : null
        if (lacking !== null) return yield* jobFailure("format_unavailable", `The media has no ${lacking}; choose one of its formats.`)
        const duration =
          clipDuration(section, heard?.durationSeconds ?? null) ??
          Option.getOrNull(Option.flatMapNullishOr(facts, (p) => p.durationSeconds))
        const breach = limitBreach(limits, { bytes: size, durationSeconds: duration })
        if (breach !== null) return yield* jobFailure(breach.code, breach.message)
        return produced
      }, Effect.scoped)

      /** Runs from one source, retrying transient failures with backoff; a refusal of stored URLs ends it at once. */
      const runWithRetries = (source: Source, spec: FormatSpec, options: FetchOptions, command: DownloadMedia) => {
        let runs = 0
        return Effect.suspend(() => {
          runs++
          return runOnce(source, spec, options, command)
        }).pipe(
          Effect.tapError((failure) =>
            failure._tag === "DownloadFailed" && failure.transient && runs <= config.downloadRetries
              ? Effect.logWarning("transient download failure; retrying", { run: runs, message: failure.message })
              : Effect.void
          ),
          Effect.retry({
            while: (failure) => failure._tag === "DownloadFailed" && failure.transient,
            times: config.downloadRetries,
            schedule: Schedule.exponential(config.downloadRetryBaseMs)
          }),
          Effect.mapError((failure) =>
            failure._tag === "DownloadFailed" && failure.transient
              ? jobFailure("download_failed", `${failure.message} (tried ${runs} times)`)
              : failure
          )
        )
      }

      /** The resolve's info, written into the job's directory; none when there is none to use (never fails the job). */
      const storedInfo = Effect.fn("FetchMedia.storedInfo")(function* (mediaId: string, workDir: string) {
        const info = yield* infoStore.get(mediaId).pipe(
          Effect.tapError((error) =>
            Effect.logWarning("stored resolve info unreadable", { operation: error.operation, message: error.message })
          ),
          Effect.orElseSucceed(() => Option.none<string>())
        )
        if (Option.isNone(info)) return Option.none<Source>()
        const infoPath = join(workDir, INFO_FILE)
        // Only the job's own directory holds it, readable by the service user alone; it goes with the directory.
        yield* Effect.promise(() => writeFile(infoPath, info.value, { mode: 0o600 }))
        return Option.some<Source>({ _tag: "StoredInfo", infoPath })
      })

      const fetch = Effect.fn("FetchMedia.fetch")(function* (command: DownloadMedia, spec: FormatSpec, options: FetchOptions) {
        const url = yield* Effect.try({
          try: () => new URL(command.url),
          catch: () => jobFailure("url_not_allowed", "the URL is not valid")
        })
        yield* policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))
        const page = runWithRetries({ _tag: "Page", url }, spec, options, command).pipe(
          // Only runs from stored info are judged this way, so a page run never ends with it.
          Effect.catchTag("StoredUrlsRefused", (refused) => Effect.fail(jobFailure("download_failed", refused.message)))
        )
        const fromPageAgain = (reason: "urls_refused" | "info_missing") =>
          countOne(reextractions, { platform: command.platform, reason }).pipe(Effect.andThen(page))
        const stored = command.mediaId === null ? Option.none<Source>() : yield* storedInfo(command.mediaId, options.workDir)
        const download = Option.isSome(stored)
          ? runWithRetries(stored.value, spec, options, command).pipe(
              Effect.catchTag("StoredUrlsRefused", (refused) =>
                Effect.logInfo("stored media URLs were refused; extracting from the page once", { reason: refused.message }).pipe(
                  Effect.andThen(fromPageAgain("urls_refused"))
                )
              )
            )
          : command.mediaId === null
            ? page
            : Effect.logInfo("no stored resolve for the media; extracting from the page").pipe(
                Effect.andThen(fromPageAgain("info_missing"))
              )
        return yield* download.pipe(
          Effect.timeoutOrElse({
            duration: config.downloadTimeoutMs,
            orElse: () => Effect.fail(jobFailure("download_timeout", `The download took longer than ${config.downloadTimeoutMs / 1000} s.`))
          })
        )
      })

      const fetchSubtitles = Effect.fn("FetchMedia.fetchSubtitles")(function* (
        command: DownloadMedia,
        language: string,
        options: FetchOptions
      ) {
        const url = yield* Effect.try({
          try: () => new URL(command.url),
          catch: () => jobFailure("url_not_allowed", "the URL is not valid")
        })
        yield* policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(command.platform))
        const cookies = yield* runCookies.forRun(options.projectId, command.url)
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
            if (code === "url_not_allowed")
              return jobFailure(code, `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`)
            if (code === "transient" || code === "failed")
              return jobFailure("download_failed", failureMessage(error.stderr), code === "transient")
            return jobFailure(code, failureMessage(error.stderr))
          }),
          Effect.timeoutOrElse({
            duration: config.downloadTimeoutMs,
            orElse: () => Effect.fail(jobFailure("download_timeout", `The download took longer than ${config.downloadTimeoutMs / 1000} s.`))
          })
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

      return FetchMedia.of({ fetch, fetchSubtitles })
    })
  )
}

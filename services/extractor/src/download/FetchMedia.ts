// One yt-dlp run of a job through the egress proxy: progress, limits judged while it runs, transient failures retried.
import { stat } from "node:fs/promises"
import { join } from "node:path"
import { Context, Deferred, Effect, Layer, Option, Schedule } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { type FormatSpec } from "@mds/shared/domain/media/FormatId"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { egressProxy } from "../egress/EgressProxy.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { classifyFailure, failureMessage } from "../ytdlp/classifyFailure.ts"
import { parseCurlMeterLine } from "../ytdlp/CurlMeterLine.ts"
import { parseInfoLine } from "../ytdlp/InfoLine.ts"
import { parseProgressBytes, parseProgressLine } from "../ytdlp/ProgressLine.ts"
import { type DownloadedFile, parseResultLine } from "../ytdlp/ResultLine.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { downloadFlags } from "../ytdlp/YtDlpFlags.ts"
import { clipDuration, sectionFlags } from "../ytdlp/SectionFlags.ts"
import { presetFlags } from "../ytdlp/PresetFlags.ts"
import { embedSubtitleFlags, parseSubtitleTitle, subtitleFileFlags } from "../ytdlp/SubtitleFlags.ts"
import { OutputConversion } from "../output/OutputConversion.ts"
import { sectionOutOfRange } from "@mds/shared/domain/job/DownloadOptions"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import { type JobLimits, limitBreach, type MediaFacts } from "./JobLimits.ts"

export interface FetchOptions {
  readonly workDir: string
  /** Called with the latest download percent (0-100) whenever yt-dlp reports one. */
  readonly onPercent: (percent: number) => void
}

export class FetchMedia extends Context.Service<FetchMedia, {
  /** Downloads into `workDir` within the job's limits; the finished file, or the failure that ends the job. */
  fetch(command: DownloadMedia, spec: FormatSpec, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
  /** Extension: one subtitle language as a WebVTT file (format subtitles_<language>). */
  fetchSubtitles(command: DownloadMedia, language: string, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
}>()("mds/extractor/FetchMedia") {
  static readonly layer = Layer.effect(
    FetchMedia,
    Effect.gen(function*() {
      const policy = yield* EgressPolicy
      const ytdlp = yield* YtDlp
      const ffmpeg = yield* Ffmpeg
      const conversion = yield* OutputConversion
      const config = yield* ExtractorConfig
      const limits: JobLimits = { maxDurationSeconds: config.maxDurationSeconds, maxFileBytes: config.maxFileBytes }

      const runOnce = Effect.fn("FetchMedia.runOnce")(function*(url: URL, spec: FormatSpec, options: FetchOptions, command: DownloadMedia) {
        const { platform } = command
        const section = command.options?.section
        const proxy = yield* egressProxy(policy)
        // Completed from the line callback when a limit is crossed; racing it against yt-dlp kills the run at once.
        const overLimit = Deferred.makeUnsafe<never, DownloadFailed>()
        let announced: MediaFacts = {}
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
          const bytes = parseProgressBytes(line)
          if (bytes !== null) judge({ bytes })
          const info = parseInfoLine(line)
          if (Option.isSome(info)) {
            announced = info.value
            judge(announced)
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

        const flags = {
          ...downloadFlags(spec, options.workDir, proxy.url, config.ffmpegPath),
          ...sectionFlags(section),
          ...presetFlags(spec, command.options),
          ...(spec.kind === "video" ? embedSubtitleFlags(command.options?.subtitles) : {})
        }
        yield* timed(ytDlpDuration, { operation: "download", platform }, ytdlp.run(url.href, flags, { cwd: options.workDir, onLine, onErrorLine })).pipe(
          Effect.mapError((error) => {
            const code = classifyFailure(error.stderr, proxy.refusals.length > 0)
            switch (code) {
              case "url_not_allowed":
                return jobFailure(code, `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`)
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
        const downloaded = result as DownloadedFile | null
        if (downloaded === null) return yield* jobFailure("download_failed", "the extractor reported no output file")
        // Output presets: the codec, container or silence the job asked for, when the platform's file is not so.
        const converted = spec.kind === "video"
          ? yield* conversion.convert(downloaded, command.options).pipe(
            Effect.mapError((error) => jobFailure("internal_error", `converting the file failed: ${error.message}`))
          )
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
        const size = yield* Effect.promise(() => stat(produced.filepath).then((s) => s.size, () => null))
        const duration = clipDuration(section, announced.durationSeconds ?? null) ?? (limits.maxDurationSeconds > 0
          ? (yield* ffmpeg.probeFile(produced.filepath).pipe(Effect.option)).pipe(Option.flatMapNullishOr((p) => p.durationSeconds), Option.getOrNull)
          : null)
        const breach = limitBreach(limits, { bytes: size, durationSeconds: duration })
        if (breach !== null) return yield* jobFailure(breach.code, breach.message)
        return produced
      }, Effect.scoped)

      const fetch = Effect.fn("FetchMedia.fetch")(function*(command: DownloadMedia, spec: FormatSpec, options: FetchOptions) {
        const url = yield* Effect.try({
          try: () => new URL(command.url),
          catch: () => jobFailure("url_not_allowed", "the URL is not valid")
        })
        yield* policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))
        let runs = 0
        return yield* Effect.suspend(() => {
          runs++
          return runOnce(url, spec, options, command)
        }).pipe(
          Effect.tapError((failure) =>
            failure.transient && runs <= config.downloadRetries
              ? Effect.logWarning("transient download failure; retrying", { run: runs, message: failure.message })
              : Effect.void
          ),
          Effect.retry({
            while: (failure) => failure.transient,
            times: config.downloadRetries,
            schedule: Schedule.exponential(config.downloadRetryBaseMs)
          }),
          Effect.mapError((failure) =>
            failure.transient ? jobFailure("download_failed", `${failure.message} (tried ${runs} times)`) : failure
          ),
          Effect.timeoutOrElse({
            duration: config.downloadTimeoutMs,
            orElse: () =>
              Effect.fail(jobFailure("download_timeout", `The download took longer than ${config.downloadTimeoutMs / 1000} s.`))
          })
        )
      })

      const fetchSubtitles = Effect.fn("FetchMedia.fetchSubtitles")(function*(command: DownloadMedia, language: string, options: FetchOptions) {
        const url = yield* Effect.try({
          try: () => new URL(command.url),
          catch: () => jobFailure("url_not_allowed", "the URL is not valid")
        })
        yield* policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))
        const proxy = yield* egressProxy(policy)
        let title: string | null = null
        const onLine = (line: string) => {
          title = parseSubtitleTitle(line) ?? title
        }
        yield* ytdlp.run(url.href, subtitleFileFlags(language, options.workDir, proxy.url, config.ffmpegPath), { cwd: options.workDir, onLine }).pipe(
          Effect.mapError((error) => {
            const code = classifyFailure(error.stderr, proxy.refusals.length > 0)
            if (code === "url_not_allowed") return jobFailure(code, `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`)
            if (code === "transient" || code === "failed") return jobFailure("download_failed", failureMessage(error.stderr), code === "transient")
            return jobFailure(code, failureMessage(error.stderr))
          }),
          Effect.timeoutOrElse({
            duration: config.downloadTimeoutMs,
            orElse: () => Effect.fail(jobFailure("download_timeout", `The download took longer than ${config.downloadTimeoutMs / 1000} s.`))
          })
        )
        // yt-dlp skips a language the media lacks without failing: the file's absence says so.
        const filepath = join(options.workDir, `media.${language}.vtt`)
        const size = yield* Effect.promise(() => stat(filepath).then((s) => s.size, () => null))
        if (size === null) return yield* jobFailure("subtitles_unavailable", `The media has no subtitles in ${language}.`)
        options.onPercent(100)
        const named = title as string | null
        return { filepath, title: `${named ?? "subtitles"}.${language}`, ext: "vtt" }
      }, Effect.scoped)

      return FetchMedia.of({ fetch, fetchSubtitles })
    })
  )
}

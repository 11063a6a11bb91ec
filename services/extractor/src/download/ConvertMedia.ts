// Convert: brings a run's file to the output the job asked for (codec, container, silence, embedded subtitles), then
// judges the finished file: the subtitles asked for, the stream the format needs, and the job's limits.
import { stat } from "node:fs/promises"
import { Context, Effect, Layer, Option } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { OutputConversion } from "../output/OutputConversion.ts"
import type { AnnouncedMedia } from "../ytdlp/InfoLine.ts"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { clipDuration } from "../ytdlp/SectionFlags.ts"
import { jobFailure } from "./DownloadFailed.ts"
import { needsFileProbe } from "./FileProbeNeed.ts"
import { type JobLimits, limitBreach } from "./JobLimits.ts"

export class ConvertMedia extends Context.Service<ConvertMedia>()("mds/extractor/ConvertMedia", {
  make: Effect.gen(function* () {
    const ffmpeg = yield* Ffmpeg
    const conversion = yield* OutputConversion

    /** `announced` is what yt-dlp said of the media before downloading it (null: nothing). */
    const convert = Effect.fn("ConvertMedia.convert")(function* (
      downloaded: DownloadedFile,
      spec: FormatSpec,
      command: DownloadMedia,
      announced: AnnouncedMedia | null,
      limits: JobLimits
    ) {
      const section = command.options?.section
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
      const facts = needsFileProbe(spec, announced, limits) ? yield* ffmpeg.probeFile(produced.filepath).pipe(Effect.option) : Option.none()
      const lacking = Option.isNone(facts)
        ? null
        : spec.kind === "video" && !facts.value.hasVideo
          ? "video"
          : spec.kind === "audio" && !facts.value.hasAudio
            ? "audio"
            : null
      if (lacking !== null) return yield* jobFailure("format_unavailable", `The media has no ${lacking}; choose one of its formats.`)
      const duration =
        clipDuration(section, announced?.durationSeconds ?? null) ??
        Option.getOrNull(Option.flatMapNullishOr(facts, (p) => p.durationSeconds))
      const breach = limitBreach(limits, { bytes: size, durationSeconds: duration })
      if (breach !== null) return yield* jobFailure(breach.code, breach.message)
      return produced
    })

    return { convert }
  })
}) {
  static readonly layer = Layer.effect(ConvertMedia, ConvertMedia.make)
}

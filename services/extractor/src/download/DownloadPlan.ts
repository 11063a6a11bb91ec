// Plan: what a job's format asks to be fetched: the media as video or audio, or (extension) one subtitle language.
import { Effect, Option } from "effect"
import { type FormatSpec, parseFormatId } from "@mds/shared/domain/media/FormatId"
import { parseSubtitleFormatId } from "@mds/shared/domain/media/SubtitleTrack"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"

export type DownloadPlan =
  | { readonly _tag: "Media"; readonly spec: FormatSpec }
  /** Extension: subtitles_<language> delivers one WebVTT file instead of the media. */
  | { readonly _tag: "Subtitles"; readonly language: string }

export const planDownload = (format: string): Effect.Effect<DownloadPlan, DownloadFailed> => {
  const language = parseSubtitleFormatId(format)
  if (Option.isSome(language)) return Effect.succeed({ _tag: "Subtitles", language: language.value })
  return Option.match(parseFormatId(format), {
    onNone: () => Effect.fail(jobFailure("format_unavailable", `unknown format ${format}`)),
    onSome: (spec) => Effect.succeed({ _tag: "Media", spec })
  })
}

/** What the stored file is typed as (its MIME type): the media's kind; a subtitle file counts as video. */
export const fileKindOf = (plan: DownloadPlan): "video" | "audio" => (plan._tag === "Media" ? plan.spec.kind : "video")

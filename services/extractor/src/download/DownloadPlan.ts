// Plan: what a job's format asks to be fetched: the media as video or audio, or (extension) one subtitle language.
import { Effect } from "effect"
import { type DownloadFormat, type FormatSpec, formatIdOf } from "@mds/shared/domain/media/FormatId"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"

export type DownloadPlan =
  | { readonly _tag: "Media"; readonly spec: FormatSpec }
  /** Extension: subtitles_<language> delivers one WebVTT file instead of the media. */
  | { readonly _tag: "Subtitles"; readonly language: string }

/** The format was parsed where the request was decoded; an id outside the grammar that a media offered fails here. */
export const planDownload = (format: DownloadFormat): Effect.Effect<DownloadPlan, DownloadFailed> => {
  switch (format.kind) {
    case "subtitles":
      return Effect.succeed({ _tag: "Subtitles", language: format.language })
    case "unlisted":
      return Effect.fail(jobFailure("format_unavailable", `unknown format ${formatIdOf(format)}`))
    case "video":
    case "audio":
      return Effect.succeed({ _tag: "Media", spec: format })
  }
}

/** What the stored file is typed as (its MIME type): the media's kind; a subtitle file counts as video. */
export const fileKindOf = (plan: DownloadPlan): "video" | "audio" => (plan._tag === "Media" ? plan.spec.kind : "video")

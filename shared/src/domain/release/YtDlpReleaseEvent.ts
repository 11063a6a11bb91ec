// The fleet's yt-dlp release: what an operator chose (mds.catalog.ytdlp.choice) and what each extractor did with it.
import { Schema } from "effect"

/** A channel ("stable": the newest release; "nightly": the newest pre-release) or an exact version. */
export const YtDlpReleaseChoice = Schema.String.check(
  Schema.makeFilter((choice: string) =>
    choice === "stable" || choice === "nightly" || /^\d{4}\.\d{1,2}\.\d{1,2}(\.[0-9A-Za-z.]+)?$/.test(choice)
      ? undefined
      : "must be stable, nightly or a yt-dlp version such as 2026.10.26"
  )
)
export type YtDlpReleaseChoice = typeof YtDlpReleaseChoice.Type

/** Appended by `cli extractors use ...` and followed by every extractor. */
export const YtDlpReleaseChosen = Schema.TaggedStruct("YtDlpReleaseChosen", {
  v: Schema.Literal(1),
  choice: YtDlpReleaseChoice,
  at: Schema.Number
})
export type YtDlpReleaseChosen = typeof YtDlpReleaseChosen.Type

/** An extractor installed, checked and switched to `version`: new runs use it, runs already going finish on `previous`. */
export const YtDlpReleaseActivated = Schema.TaggedStruct("YtDlpReleaseActivated", {
  v: Schema.Literal(1),
  workerId: Schema.String,
  choice: Schema.String,
  version: Schema.String,
  previous: Schema.String,
  at: Schema.Number
})
export type YtDlpReleaseActivated = typeof YtDlpReleaseActivated.Type

/** An extractor could not install `choice`, or its self-check failed: it kept (rolled back to) `kept`. */
export const YtDlpReleaseRejected = Schema.TaggedStruct("YtDlpReleaseRejected", {
  v: Schema.Literal(1),
  workerId: Schema.String,
  choice: Schema.String,
  version: Schema.NullOr(Schema.String),
  kept: Schema.String,
  reason: Schema.String,
  at: Schema.Number
})
export type YtDlpReleaseRejected = typeof YtDlpReleaseRejected.Type

/** An extractor started on `version` (the chosen release when it had one installed, else the one it was built with). */
export const YtDlpReleaseRunning = Schema.TaggedStruct("YtDlpReleaseRunning", {
  v: Schema.Literal(1),
  workerId: Schema.String,
  version: Schema.String,
  at: Schema.Number
})
export type YtDlpReleaseRunning = typeof YtDlpReleaseRunning.Type

/** What extractors report on mds.catalog.ytdlp.workers. */
export const YtDlpWorkerEvent = Schema.Union([YtDlpReleaseRunning, YtDlpReleaseActivated, YtDlpReleaseRejected])
export type YtDlpWorkerEvent = typeof YtDlpWorkerEvent.Type

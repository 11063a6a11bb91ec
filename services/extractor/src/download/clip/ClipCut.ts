// Cuts a clip out of the fragments yt-dlp fetched for it: a local ffmpeg run on the job's own files, no network.
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { ClipSection } from "@mds/shared/domain/job/DownloadOptions"
import { ExtractorConfig } from "../../ExtractorConfig.ts"
import { runLocalTool } from "../../output/OutputConversion.ts"
import { Confinement } from "../../sandbox/Confinement.ts"
import type { AnnouncedMedia } from "../../ytdlp/InfoLine.ts"
import type { DownloadedFile } from "../../ytdlp/ResultLine.ts"
import { jobFailure } from "../DownloadFailed.ts"
import type { FormatStart } from "./clipInfo.ts"
import { clipCutArgs, cutOffsets } from "./clipCutArgs.ts"

export class ClipCut extends Context.Service<ClipCut>()("mds/extractor/ClipCut", {
  make: Effect.gen(function* () {
    const { ffmpegPath } = yield* ExtractorConfig
    const confinement = yield* Confinement

    /** `starts` are the trimmed formats' (clipInfo); `announced` says which of them yt-dlp chose. */
    const cut = Effect.fn("ClipCut.cut")(function* (
      downloaded: DownloadedFile,
      section: ClipSection,
      starts: ReadonlyMap<string, FormatStart>,
      announced: AnnouncedMedia | null
    ) {
      const formatId = announced?.formatId ?? null
      const offsets = formatId === null ? null : cutOffsets(section, starts, formatId)
      if (offsets === null)
        return yield* jobFailure("internal_error", `cutting the clip failed: yt-dlp chose an unknown format (${formatId})`)
      const ext = (downloaded.ext ?? downloaded.filepath.split(".").at(-1) ?? "mp4").toLowerCase()
      const output = join(downloaded.filepath, "..", `clip.${ext}`)
      yield* runLocalTool(confinement, ffmpegPath, clipCutArgs(downloaded.filepath, output, ext, section, offsets)).pipe(
        Effect.mapError((error) => jobFailure("internal_error", `cutting the clip failed: ${error.message}`))
      )
      return { ...downloaded, filepath: output, ext } satisfies DownloadedFile
    })

    return { cut }
  })
}) {
  static readonly layer = Layer.effect(ClipCut, ClipCut.make)
}

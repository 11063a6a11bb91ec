// Thumbnail: a picture generated from the media when its page offers none, stored as an artifact; an empty string
// when even that fails (the media is still usable).
import { mkdir, rm } from "node:fs/promises"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { downloadLinkOf } from "@mds/shared/artifacts/DownloadLink"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import type { MediaDescription } from "../ytdlp/describeMedia.ts"

export class MediaThumbnail extends Context.Service<MediaThumbnail>()("mds/extractor/MediaThumbnail", {
  make: Effect.gen(function* () {
    const ffmpeg = yield* Ffmpeg
    const artifacts = yield* ArtifactStore
    const config = yield* ExtractorConfig

    /** The picture's signed link, valid as long as the media (`expiresAt`). */
    const generate = Effect.fn("MediaThumbnail.generate")(function* (
      mediaId: string,
      described: MediaDescription,
      proxyUrl: string,
      expiresAt: number
    ) {
      if (described.mediaUrl === null) return ""
      const dir = join(config.workRoot, `resolve-${mediaId}`)
      const output = join(dir, "thumbnail.jpg")
      const key = `thumbnails/${mediaId}.jpg`
      return yield* Effect.promise(() => mkdir(dir, { recursive: true })).pipe(
        Effect.andThen(
          ffmpeg.thumbnail(
            described.mediaUrl,
            described.hasCover ? "cover" : described.type === "audio" ? "audio" : "video",
            output,
            proxyUrl,
            described.durationSeconds
          )
        ),
        Effect.andThen(artifacts.putFile(key, output, "image/jpeg")),
        Effect.andThen(downloadLinkOf(artifacts, { key, availableUntil: expiresAt, filename: `${mediaId}.jpg` })),
        Effect.tapError((error) => Effect.logWarning("thumbnail generation failed", { mediaId, message: error.message })),
        Effect.orElseSucceed(() => ""),
        Effect.ensuring(Effect.promise(() => rm(dir, { recursive: true, force: true })))
      )
    })

    return { generate }
  })
}) {
  static readonly layer = Layer.effect(MediaThumbnail, MediaThumbnail.make)
}

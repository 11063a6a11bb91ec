// Attribution: the platform a download counts for is the extractor that handled it, and YouTube media is refused.
import { Effect } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { isBlockedExtractor, platformIdOf } from "@mds/shared/domain/platform/platformIdOf"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"

/**
 * A job by URL was classified by host before any extraction; the extractor that handled the download says what it
 * really was. A page that embeds YouTube media is refused like a YouTube link, and its file is not kept.
 */
export const handledByOf = (command: DownloadMedia, file: DownloadedFile): Effect.Effect<string, DownloadFailed> => {
  const key = file.extractor_key ?? null
  if (key === null) return Effect.succeed(command.platform)
  if (isBlockedExtractor(key))
    return Effect.fail(jobFailure("unsupported_platform", "The media is hosted on YouTube, which is not a supported platform."))
  return Effect.succeed(platformIdOf(key))
}

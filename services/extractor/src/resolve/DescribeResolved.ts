// Describe: what a resolve's info says of one media: the platform that handled it (YouTube's is refused), its streams
// probed when yt-dlp left them open, and its formats (a media without any is unavailable).
import { Context, Effect, Layer } from "effect"
import { isBlockedExtractor, platformIdOf } from "@mds/shared/domain/platform/platformIdOf"
import type { EgressProxy } from "../egress/EgressProxy.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { refusedHopMessage } from "../ytdlp/classifyFailure.ts"
import { describeLive } from "../ytdlp/describeLive.ts"
import { describeMedia, mediaEntry, needsProbe, probeableUrl } from "../ytdlp/describeMedia.ts"
import type { YtDlpInfo } from "../ytdlp/YtDlpInfo.ts"
import { FORMAT_GRAMMAR_FORMATS } from "./playlistFormats.ts"
import { failWith } from "./ResolveFailure.ts"

export class DescribeResolved extends Context.Service<DescribeResolved>()("mds/extractor/DescribeResolved", {
  make: Effect.gen(function* () {
    const ffmpeg = yield* Ffmpeg

    /** `platform` is what the URL looked like; the probe goes through the run's egress proxy. */
    const describe = Effect.fn("DescribeResolved.describe")(function* (url: URL, platform: string, info: YtDlpInfo, proxy: EgressProxy) {
      const entry = mediaEntry(info)
      // The platform is the extractor that handled the media: a page embedding a YouTube video is YouTube's.
      const extractorKey = entry.extractor_key ?? info.extractor_key ?? null
      if (extractorKey !== null && isBlockedExtractor(extractorKey)) {
        return yield* failWith("unsupported_platform", "the media is hosted on YouTube, which is not a supported platform")
      }
      const handledBy = extractorKey === null ? platform : platformIdOf(extractorKey)
      // Extension: a stream that has not begun has no formats yet (the resolve asks yt-dlp to answer anyway); it
      // offers the format grammar's ids, judged once it is live. Any other media without formats is what yt-dlp's
      // own "No video formats found!" said before.
      const upcoming = describeLive(entry).liveStatus === "is_upcoming"
      if ((entry.formats ?? []).length === 0 && typeof entry.url !== "string" && !upcoming)
        return yield* failWith("extraction_failed", "No video formats found!")
      const probeUrl = probeableUrl(entry)
      const probe =
        needsProbe(entry) && probeUrl !== null
          ? yield* ffmpeg.probe(probeUrl, proxy.url).pipe(
              Effect.tapError((error) => Effect.logWarning("ffprobe failed", { url: probeUrl, message: error.message })),
              Effect.orElseSucceed(() => null)
            )
          : null
      if (proxy.refusals.length > 0) return yield* failWith("url_not_allowed", refusedHopMessage(proxy.refusals))
      const media = describeMedia(info, probe, url.href)
      const described = upcoming && media.formats.length === 0 ? { ...media, formats: FORMAT_GRAMMAR_FORMATS } : media
      if (described.formats.length === 0) return yield* failWith("media_unavailable", "no downloadable video or audio was found")
      return { handledBy, described, probeUrl, probe }
    })

    return { describe }
  })
}) {
  static readonly layer = Layer.effect(DescribeResolved, DescribeResolved.make)
}

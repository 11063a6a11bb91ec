// Describe: what a resolve's info says of one media: the platform that handled it (YouTube's is refused), its streams
// probed when yt-dlp left them open, and its formats (a media without any is unavailable).
import { Context, Effect, Layer } from "effect"
import { isBlockedExtractor, platformIdOf } from "@mds/shared/domain/platform/platformIdOf"
import type { EgressProxy } from "../egress/EgressProxy.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { refusedHopMessage } from "../ytdlp/classifyFailure.ts"
import { describeMedia, mediaEntry, needsProbe, probeableUrl } from "../ytdlp/describeMedia.ts"
import type { YtDlpInfo } from "../ytdlp/YtDlpInfo.ts"
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
      const probeUrl = probeableUrl(entry)
      const probe =
        needsProbe(entry) && probeUrl !== null
          ? yield* ffmpeg.probe(probeUrl, proxy.url).pipe(
              Effect.tapError((error) => Effect.logWarning("ffprobe failed", { url: probeUrl, message: error.message })),
              Effect.orElseSucceed(() => null)
            )
          : null
      if (proxy.refusals.length > 0) return yield* failWith("url_not_allowed", refusedHopMessage(proxy.refusals))
      const described = describeMedia(info, probe, url.href)
      if (described.formats.length === 0) return yield* failWith("media_unavailable", "no downloadable video or audio was found")
      return { handledBy, described, probeUrl, probe }
    })

    return { describe }
  })
}) {
  static readonly layer = Layer.effect(DescribeResolved, DescribeResolved.make)
}

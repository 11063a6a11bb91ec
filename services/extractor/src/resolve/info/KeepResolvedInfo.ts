// Keeps what yt-dlp learned in a resolve, for downloads by media id. Without it a download extracts from the page
// again, so a failure here costs time, not the resolve. The info itself is never logged (cookies, signed URLs).
import { Context, Effect, Layer, Option } from "effect"
import type { MediaProbeResult } from "../../ytdlp/MediaProbeResult.ts"
import { downloadableInfo } from "./downloadableInfo.ts"
import { embedHlsPlaylists } from "./embedHlsPlaylists.ts"
import { fetchPlaylistThroughProxy } from "./fetchPlaylistThroughProxy.ts"
import { ResolvedInfoStore } from "./ResolvedInfoStore.ts"
import { withProbedStreams } from "./withProbedStreams.ts"

export class KeepResolvedInfo extends Context.Service<KeepResolvedInfo>()("mds/extractor/KeepResolvedInfo", {
  make: Effect.gen(function* () {
    const infoStore = yield* ResolvedInfoStore

    /** `stdout` is the info as yt-dlp printed it; a probe of `probedUrl` adds the streams yt-dlp left open. */
    const keep = Effect.fn("KeepResolvedInfo.keep")(function* (
      mediaId: string,
      stdout: string,
      proxyUrl: string,
      probedUrl: string | null,
      probe: MediaProbeResult | null
    ) {
      const parsed = downloadableInfo(stdout)
      if (Option.isNone(parsed)) return yield* Effect.logWarning("resolve info not kept: not a JSON object", { mediaId })
      const entry = withProbedStreams(parsed.value, probedUrl, probe)
      const fetchPlaylist = yield* fetchPlaylistThroughProxy(proxyUrl)
      // Embedding saves the downloads their playlist requests; a slow CDN must not make the resolve slow.
      const info = yield* embedHlsPlaylists(entry, fetchPlaylist).pipe(
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.succeed(entry) })
      )
      yield* infoStore
        .put(mediaId, JSON.stringify(info))
        .pipe(
          Effect.catchTag("ResolvedInfoStoreError", (error) =>
            Effect.logWarning("resolve info not kept", { mediaId, operation: error.operation, message: error.message })
          )
        )
    }, Effect.scoped)

    return { keep }
  })
}) {
  static readonly layer = Layer.effect(KeepResolvedInfo, KeepResolvedInfo.make)
}

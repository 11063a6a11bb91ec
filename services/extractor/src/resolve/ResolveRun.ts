// One resolve's run, in steps: extract the info (yt-dlp -J), then for a playlist its entries; for one media describe
// it, generate a thumbnail when the page has none, keep the info for downloads; and record the MediaResolved.
import { describeLive } from "../ytdlp/describeLive.ts"
import { mediaEntry } from "../ytdlp/describeMedia.ts"
import { Context, Effect, Layer } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { mediaOwnerOf } from "@mds/shared/domain/media/MediaVisibility"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { newId } from "@mds/shared/ids/Ids"
import { RunAccess } from "../egress/RunAccess.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { playlistEntries } from "../ytdlp/describePlaylist.ts"
import { DescribeResolved } from "./DescribeResolved.ts"
import { ExtractInfo } from "./ExtractInfo.ts"
import { KeepResolvedInfo } from "./info/KeepResolvedInfo.ts"
import { MediaThumbnail } from "./MediaThumbnail.ts"
import { recordResolved, resolvedMedia, resolvedPlaylist } from "./RecordResolved.ts"

export class ResolveRun extends Context.Service<ResolveRun>()("mds/extractor/ResolveRun", {
  make: Effect.gen(function* () {
    const provideStore = Effect.provideService(EventStore, yield* EventStore)
    const lifetimes = yield* Lifetimes
    const config = yield* ExtractorConfig
    const access = yield* RunAccess
    const extraction = yield* ExtractInfo
    const descriptions = yield* DescribeResolved
    const thumbnails = yield* MediaThumbnail
    const infos = yield* KeepResolvedInfo

    /** `platform` is what the URL looked like; `runId` names the run to the platform's pacing. */
    const run = Effect.fn("ResolveRun.run")(function* (
      url: URL,
      platform: string,
      projectId: string | null,
      playlist: boolean,
      runId: string
    ) {
      const { proxy, cookies } = yield* access.open(platform, projectId, url.href)
      const owner = mediaOwnerOf(projectId, cookies.used)
      const { info, stdout } = yield* extraction.extract(url, platform, proxy, cookies.flags, playlist, runId)
      const entries = playlist ? playlistEntries(info, config.playlistMaxEntries) : null
      if (entries !== null) {
        const now = Date.now()
        return yield* recordResolved(
          resolvedPlaylist({
            mediaId: newId("med"),
            url,
            platform,
            info,
            entries,
            owner,
            resolvedAt: now,
            expiresAt: now + lifetimes.mediaMs
          })
        ).pipe(provideStore)
      }
      const { handledBy, described, probeUrl, probe } = yield* descriptions.describe(url, platform, info, proxy)
      const now = Date.now()
      const mediaId = newId("med")
      const expiresAt = now + lifetimes.mediaMs
      const thumbnail = described.thumbnail ?? (yield* thumbnails.generate(mediaId, described, proxy.url, expiresAt))
      // Extension: an upcoming stream's info has no formats: its job, once the stream began, reads the URL afresh.
      if (describeLive(mediaEntry(info)).liveStatus !== "is_upcoming") yield* infos.keep(mediaId, stdout, proxy.url, probeUrl, probe)
      return yield* recordResolved(
        resolvedMedia({ mediaId, url, handledBy, described, thumbnail, info, owner, resolvedAt: now, expiresAt })
      ).pipe(provideStore)
    }, Effect.scoped)

    return { run }
  })
}) {
  static readonly layer = Layer.effect(ResolveRun, ResolveRun.make).pipe(
    Layer.provide(Layer.mergeAll(ExtractInfo.layer, DescribeResolved.layer, MediaThumbnail.layer, KeepResolvedInfo.layer))
  )
}

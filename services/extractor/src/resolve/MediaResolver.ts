// Resolves a URL into MediaResolved: platform check, egress check, yt-dlp -J through the proxy, probing, thumbnail, append.
import { randomUUID } from "node:crypto"
import { mkdir, rm } from "node:fs/promises"
import { join } from "node:path"
import { Context, Deferred, Effect, Layer, Option, Result, Schema } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { downloadLinkOf } from "@mds/shared/artifacts/DownloadLink"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { mediaOwnerOf } from "@mds/shared/domain/media/MediaVisibility"
import { ResolveFailureCode } from "@mds/shared/domain/media/ResolveRpc"
import { classifyUrl } from "@mds/shared/domain/platform/classifyUrl"
import { isBlockedExtractor, platformIdOf } from "@mds/shared/domain/platform/platformIdOf"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { recordMedia } from "@mds/shared/domain/media/MediaFacts"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { newId } from "@mds/shared/ids/Ids"
import { Impersonation } from "../antibot/Impersonation.ts"
import { RunCookies } from "../cookies/RunCookies.ts"
import { egressProxy } from "../egress/EgressProxy.ts"
import { UpstreamProxies } from "../egress/UpstreamProxies.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { countOne, extractionFailures, timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { classifyFailure, failureMessage, refusalMessage as describeRefusal } from "../ytdlp/classifyFailure.ts"
import { describeMedia, mediaEntry, needsProbe, probeableUrl } from "../ytdlp/describeMedia.ts"
import type { MediaProbeResult } from "../ytdlp/MediaProbeResult.ts"
import { describeSubtitles } from "../ytdlp/describeSubtitles.ts"
import { playlistEntries } from "../ytdlp/describePlaylist.ts"
import { FORMAT_GRAMMAR_FORMATS } from "./playlistFormats.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { downloadableInfo } from "./info/downloadableInfo.ts"
import { withProbedStreams } from "./info/withProbedStreams.ts"
import { embedHlsPlaylists } from "./info/embedHlsPlaylists.ts"
import { fetchPlaylistThroughProxy } from "./info/fetchPlaylistThroughProxy.ts"
import { ResolvedInfoStore } from "./info/ResolvedInfoStore.ts"
import { baseFlags } from "../ytdlp/YtDlpFlags.ts"
import { decodeYtDlpInfo } from "../ytdlp/YtDlpInfo.ts"

export class ResolveFailure extends Schema.TaggedError<ResolveFailure>()("ResolveFailure", {
  code: ResolveFailureCode,
  message: Schema.String
}) {}

const failWith = (code: ResolveFailureCode, message: string) => new ResolveFailure({ code, message })

/** Extension: listed only when there are some, so media without subtitles look as before. */
const subtitlesOf = (info: Parameters<typeof mediaEntry>[0]) => {
  const subtitles = describeSubtitles(mediaEntry(info))
  return subtitles.length === 0 ? {} : { subtitles }
}

export class MediaResolver extends Context.Service<
  MediaResolver,
  {
    /** Concurrent calls for the same URL share one extraction and get the same media. */
    resolve(url: string, projectId: string | null, options?: { readonly playlist?: boolean }): Effect.Effect<MediaResolved, ResolveFailure>
  }
>()("mds/extractor/MediaResolver") {
  static readonly layer = Layer.effect(
    MediaResolver,
    Effect.gen(function* () {
      const policy = yield* EgressPolicy
      const ytdlp = yield* YtDlp
      const ffmpeg = yield* Ffmpeg
      const artifacts = yield* ArtifactStore
      const provideStore = Effect.provideService(EventStore, yield* EventStore)
      const lifetimes = yield* Lifetimes
      const config = yield* ExtractorConfig
      const outcomes = yield* PlatformOutcomes
      const impersonation = yield* Impersonation
      const runCookies = yield* RunCookies
      const upstreams = yield* UpstreamProxies
      const infoStore = yield* ResolvedInfoStore
      const pacing = yield* PlatformPacing

      const extract = Effect.fn("MediaResolver.extract")(function* (
        url: URL,
        platform: string,
        projectId: string | null,
        playlist: boolean,
        runId: string
      ) {
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(platform))
        const cookies = projectId === null ? { flags: {}, used: false } : yield* runCookies.forRun(projectId, url.href)
        const owner = mediaOwnerOf(projectId, cookies.used)
        const refused = () => proxy.refusals.length > 0
        const refusalMessage = () => `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`

        // Extension: a playlist resolve reads the playlist's entries flat (no extraction per entry), up to the cap.
        const playlistFlags = playlist ? { yesPlaylist: true, flatPlaylist: true, playlistEnd: config.playlistMaxEntries } : {}
        const dumped = impersonation.run(platform, (impersonate) =>
          pacing.start(platform, runId).pipe(
            Effect.andThen(
              ytdlp.run(url.href, {
                ...baseFlags(proxy.url, config.ffmpegPath),
                dumpSingleJson: true,
                ...cookies.flags,
                ...impersonate,
                ...playlistFlags
              })
            )
          )
        )
        const run = yield* timed(ytDlpDuration, { operation: "resolve", platform }, dumped).pipe(
          Effect.mapError((error) => {
            const code = classifyFailure(error.stderr, refused())
            if (code === "url_not_allowed") return failWith(code, describeRefusal(proxy.refusals, error.stderr))
            if (code === "format_unavailable" || code === "failed" || code === "transient")
              return failWith("extraction_failed", failureMessage(error.stderr))
            return failWith(code, failureMessage(error.stderr))
          }),
          Effect.tapError((failure) => countOne(extractionFailures, { operation: "resolve", platform, code: failure.code }))
        )
        const info = yield* decodeYtDlpInfo(run.stdout).pipe(
          Effect.mapError(() => failWith("extraction_failed", "the extractor returned unreadable metadata"))
        )
        const entries = playlist ? playlistEntries(info, config.playlistMaxEntries) : null
        if (entries !== null) return yield* recordPlaylist(url, platform, info, entries, owner)
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
        if (refused()) return yield* failWith("url_not_allowed", refusalMessage())
        const described = describeMedia(info, probe, url.href)
        if (described.formats.length === 0) return yield* failWith("media_unavailable", "no downloadable video or audio was found")

        const now = Date.now()
        const mediaId = newId("med")
        const expiresAt = now + lifetimes.mediaMs
        const thumbnail = described.thumbnail ?? (yield* makeThumbnail(mediaId, described, proxy.url, expiresAt))
        yield* keepInfo(mediaId, run.stdout, proxy.url, probeUrl, probe)
        const media: MediaResolved = {
          _tag: "MediaResolved",
          v: 1,
          mediaId,
          url: url.href,
          webpageUrl: described.webpageUrl,
          platform: handledBy,
          type: described.type,
          title: described.title,
          thumbnail,
          duration: Math.max(0, Math.round(described.durationSeconds ?? 0)),
          author: described.author,
          formats: described.formats,
          resolvedAt: now,
          expiresAt,
          ...subtitlesOf(info),
          ...owner
        }
        yield* recordMedia(mediaId)(media).pipe(
          provideStore,
          Effect.mapError((error) => failWith("extraction_failed", `could not record the media: ${error.message}`))
        )
        return media
      }, Effect.scoped)

      /**
       * A resolve is paced like a download: it holds a run key while it lasts (waiting while the platform is full, within
       * the resolve's timeout) and every yt-dlp start takes a start key; a run whose lease is lost for good stops.
       */
      const pacedExtract = Effect.fn("MediaResolver.pacedExtract")(function* (
        url: URL,
        platform: string,
        projectId: string | null,
        playlist: boolean
      ) {
        const runId = `resolve-${randomUUID()}`
        const paced = yield* pacing.admitWhenFree(platform, runId)
        return yield* extract(url, platform, projectId, playlist, runId).pipe(
          Effect.raceFirst(
            paced.lost.pipe(Effect.andThen(Effect.fail(failWith("extraction_failed", "the platform's pacing lease was lost; try again"))))
          )
        )
      }, Effect.scoped)

      /**
       * Extension: a playlist is recorded as media of type "playlist" with its entries and the format grammar; read
       * with a project's cookies, it is that project's like any media (its entries are what the cookies showed).
       */
      const recordPlaylist = Effect.fn("MediaResolver.recordPlaylist")(function* (
        url: URL,
        platform: string,
        info: Parameters<typeof mediaEntry>[0],
        entries: NonNullable<ReturnType<typeof playlistEntries>>,
        owner: ReturnType<typeof mediaOwnerOf>
      ) {
        const now = Date.now()
        const mediaId = newId("med")
        const media: MediaResolved = {
          _tag: "MediaResolved",
          v: 1,
          mediaId,
          url: url.href,
          webpageUrl: info.webpage_url ?? url.href,
          platform,
          type: "playlist",
          title: info.title?.trim() || url.href,
          thumbnail: info.thumbnail ?? "",
          duration: entries.reduce((sum, entry) => sum + (entry.duration ?? 0), 0),
          author: { name: info.uploader ?? info.channel ?? "", username: info.uploader_id ?? info.channel_id ?? "" },
          formats: FORMAT_GRAMMAR_FORMATS,
          resolvedAt: now,
          expiresAt: now + lifetimes.mediaMs,
          entries,
          ...owner
        }
        yield* recordMedia(mediaId)(media).pipe(
          provideStore,
          Effect.mapError((error) => failWith("extraction_failed", `could not record the media: ${error.message}`))
        )
        return media
      })

      /**
       * What yt-dlp learned, for downloads by media id. Without it a download extracts from the page again, so a
       * failure here costs time, not the resolve. The info itself is never logged (cookies, signed URLs).
       */
      const keepInfo = Effect.fn("MediaResolver.keepInfo")(function* (
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

      /** A generated picture stored as an artifact; an empty string when even that fails (the media is still usable). */
      const makeThumbnail = Effect.fn("MediaResolver.makeThumbnail")(function* (
        mediaId: string,
        described: ReturnType<typeof describeMedia>,
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

      const resolveOnce = (raw: string, projectId: string | null, playlist: boolean) =>
        Effect.gen(function* () {
          const url = yield* Effect.try({
            try: () => new URL(raw),
            catch: () => failWith("unsupported_platform", "the URL is not valid")
          })
          const platform = classifyUrl(url)
          if (Result.isFailure(platform)) return yield* failWith("unsupported_platform", platform.failure.message)
          yield* policy.check(url).pipe(Effect.mapError((error) => failWith("url_not_allowed", error.message)))
          const platformId = platform.success.id
          return yield* pacedExtract(url, platformId, projectId, playlist).pipe(
            Effect.timeoutOrElse({
              duration: config.resolveTimeoutMs,
              orElse: () => Effect.fail(failWith("extraction_timeout", `resolving took longer than ${config.resolveTimeoutMs / 1000} s`))
            }),
            // A success counts for the extractor that handled it; a failure for the platform the URL looked like.
            Effect.tap((media) => outcomes.record(media.platform, null)),
            Effect.tapError((failure) => outcomes.record(platformId, failure))
          )
        })

      const inflight = new Map<string, Deferred.Deferred<MediaResolved, ResolveFailure>>()

      /**
       * Identical requests of one project share an extraction; another project's never (its cookies may differ), and
       * a playlist resolve never shares with a media resolve of the same URL (they answer differently).
       */
      const resolve = (
        raw: string,
        projectId: string | null,
        options?: { readonly playlist?: boolean }
      ): Effect.Effect<MediaResolved, ResolveFailure> =>
        Effect.suspend(() => {
          const playlist = options?.playlist === true
          const key = `${projectId ?? ""} ${playlist ? "playlist" : "media"} ${raw}`
          const existing = inflight.get(key)
          if (existing !== undefined) return Deferred.await(existing)
          const deferred = Deferred.makeUnsafe<MediaResolved, ResolveFailure>()
          inflight.set(key, deferred)
          return resolveOnce(raw, projectId, playlist).pipe(
            Effect.onExit((exit) => Effect.sync(() => inflight.delete(key)).pipe(Effect.andThen(Deferred.done(deferred, exit))))
          )
        })

      return MediaResolver.of({ resolve })
    })
  )
}

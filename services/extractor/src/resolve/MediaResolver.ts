// Resolves a URL into MediaResolved: checks the URL (platform, egress), waits for the platform's pacing, runs the
// resolve (ResolveRun) within the timeout, and records the outcome for the platform's health. Identical requests share
// one resolve.
import { randomUUID } from "node:crypto"
import { Context, Deferred, Effect, Layer, Result } from "effect"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { classifyUrl } from "@mds/shared/domain/platform/classifyUrl"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { failWith, type ResolveFailure } from "./ResolveFailure.ts"
import { ResolveRun } from "./ResolveRun.ts"

export class MediaResolver extends Context.Service<
  MediaResolver,
  {
    /** Concurrent calls for the same URL share one extraction and get the same media. */
    resolve(url: string, projectId: string | null, options?: { readonly playlist?: boolean }): Effect.Effect<MediaResolved, ResolveFailure>
  }
>()("mds/extractor/MediaResolver") {
  /** Its run and the run's steps are its own; egress, pacing, artifacts and the rest come from outside. */
  static readonly layer = Layer.effect(
    MediaResolver,
    Effect.gen(function* () {
      const policy = yield* EgressPolicy
      const config = yield* ExtractorConfig
      const outcomes = yield* PlatformOutcomes
      const pacing = yield* PlatformPacing
      const runs = yield* ResolveRun

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
        return yield* runs
          .run(url, platform, projectId, playlist, runId)
          .pipe(
            Effect.raceFirst(
              paced.lost.pipe(Effect.andThen(Effect.fail(failWith("extraction_failed", "the platform's pacing lease was lost; try again"))))
            )
          )
      }, Effect.scoped)

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
  ).pipe(Layer.provide(ResolveRun.layer))
}

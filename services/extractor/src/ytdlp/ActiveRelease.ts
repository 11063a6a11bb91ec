// The yt-dlp release new runs use: the binary YT_DLP_PATH names at start, then whichever release the fleet switched to.
import { Context, Effect, Layer, Metric } from "effect"
import { ExtractorConfig, YtDlpPath } from "../ExtractorConfig.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { makeYtDlp } from "./YtDlpProcess.ts"

export interface Release {
  readonly version: string
  /** The yt-dlp executable. */
  readonly path: string
}

/** Prometheus info metric: 1 for the version this extractor runs now, 0 for one it ran before. */
export const ytDlpInfo = Metric.gauge("mds_ytdlp_info", {
  description: "The yt-dlp release an extractor runs (value 1; 0 for a release it left)."
})

export class ActiveRelease extends Context.Service<
  ActiveRelease,
  {
    /** Read at the start of every run; a switch never touches a run already going. */
    current(): Release
    /** The release this extractor was started with (YT_DLP_PATH): always there to fall back to. */
    readonly builtIn: Release
    switchTo(release: Release): Effect.Effect<void>
  }
>()("mds/extractor/ActiveRelease") {
  static readonly layer = Layer.effect(
    ActiveRelease,
    Effect.gen(function* () {
      const path = yield* YtDlpPath
      const { workerId } = yield* ExtractorConfig
      const version = yield* makeYtDlp(path, yield* Confinement).version.pipe(Effect.orElseSucceed(() => "unknown"))
      const builtIn: Release = { version, path }
      let active = builtIn
      const mark = (release: Release, value: number) =>
        Metric.update(Metric.withAttributes(ytDlpInfo, { version: release.version, worker_id: workerId }), value)
      yield* mark(active, 1)
      return ActiveRelease.of({
        current: () => active,
        builtIn,
        switchTo: (release) =>
          Effect.suspend(() => {
            const previous = active
            active = release
            return previous.version === release.version ? mark(release, 1) : Effect.andThen(mark(previous, 0), mark(release, 1))
          })
      })
    })
  )
}

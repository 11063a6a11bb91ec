// Runs the active yt-dlp release confined to its egress proxy, streaming its output lines and killing it when interrupted.
import { Config, Context, Effect, Layer } from "effect"
import { commaSeparatedEntries } from "../ExtractorConfig.ts"
import { ActiveRelease } from "./ActiveRelease.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { WarmRunner } from "../warm/WarmRunner.ts"
import { makeYtDlp, type YtDlpShape } from "./YtDlpProcess.ts"

/**
 * Directories yt-dlp loads extractor plugins from (comma-separated; each holds folders with a `yt_dlp_plugins`
 * package), besides its defaults: an operator's own extractors, and the tests' stand-in platforms. Plugins run as yt-dlp
 * does, confined the same way.
 */
export const YtDlpPluginDirs = Config.String("YT_DLP_PLUGIN_DIRS").pipe(Config.withDefault(""))

export class YtDlp extends Context.Service<YtDlp, YtDlpShape>()("mds/extractor/YtDlp") {
  /**
   * Runs whichever release is active now (the one YT_DLP_PATH names until the fleet chooses another), in a child of
   * that release's warm runner whenever it can take the run.
   */
  static readonly layer = Layer.effect(
    YtDlp,
    Effect.gen(function* () {
      const active = yield* ActiveRelease
      const pluginDirs = commaSeparatedEntries(yield* YtDlpPluginDirs)
      return YtDlp.of(makeYtDlp(() => active.current().path, yield* Confinement, yield* WarmRunner, pluginDirs))
    })
  )
}

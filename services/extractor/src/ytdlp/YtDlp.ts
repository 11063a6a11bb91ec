// Runs the active yt-dlp release confined to its egress proxy, streaming its output lines and killing it when interrupted.
import { Context, Effect, Layer } from "effect"
import { ActiveRelease } from "../releases/ActiveRelease.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { makeYtDlp, type YtDlpShape } from "./YtDlpProcess.ts"

export class YtDlp extends Context.Service<YtDlp, YtDlpShape>()("mds/extractor/YtDlp") {
  /** Runs whichever release is active now (the one YT_DLP_PATH names until the fleet chooses another). */
  static readonly layer = Layer.effect(
    YtDlp,
    Effect.gen(function* () {
      const active = yield* ActiveRelease
      return YtDlp.of(makeYtDlp(() => active.current().path, yield* Confinement))
    })
  )
}

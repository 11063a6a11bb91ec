// The extractor's own settings: where it works, how long a resolve or download may take, how many jobs run at once.
import { hostname } from "node:os"
import { join } from "node:path"
import { Config, Context, Effect, Layer } from "effect"

export interface ExtractorConfigShape {
  readonly workRoot: string
  readonly ffmpegPath: string
  readonly resolveTimeoutMs: number
  readonly downloadTimeoutMs: number
  readonly workerConcurrency: number
  readonly workerId: string
}

export class ExtractorConfig extends Context.Service<ExtractorConfig, ExtractorConfigShape>()("mds/extractor/ExtractorConfig") {
  static readonly config = Config.all({
    workRoot: Config.String("DATA_DIR").pipe(Config.withDefault("./.data"), Config.map((dir) => join(dir, "work"))),
    ffmpegPath: Config.String("FFMPEG_PATH").pipe(Config.withDefault("ffmpeg")),
    resolveTimeoutMs: Config.Int("RESOLVE_TIMEOUT_SECONDS").pipe(Config.withDefault(90), Config.map((s) => s * 1000)),
    downloadTimeoutMs: Config.Int("DOWNLOAD_TIMEOUT_SECONDS").pipe(Config.withDefault(1800), Config.map((s) => s * 1000)),
    workerConcurrency: Config.Int("WORKER_CONCURRENCY").pipe(Config.withDefault(2)),
    workerId: Config.String("WORKER_ID").pipe(Config.withDefault(`${hostname()}:${process.pid}`))
  })

  static readonly layer = Layer.effect(ExtractorConfig, Effect.map(ExtractorConfig.config, ExtractorConfig.of))
}

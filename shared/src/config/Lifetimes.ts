// How long resolved media, jobs and download links live, and the per-project job limit.
import { Config, Context, Effect, Layer } from "effect"
import { wholeSecondsAsMs } from "./Seconds.ts"

export interface LifetimesShape {
  readonly mediaMs: number
  readonly jobMs: number
  readonly downloadUrlMs: number
  readonly maxConcurrentJobs: number
}

export class Lifetimes extends Context.Service<Lifetimes, LifetimesShape>()("mds/config/Lifetimes") {
  static readonly config = Config.all({
    mediaMs: wholeSecondsAsMs("API_MEDIA_RESOLVE_TTL_SECONDS", 3600),
    jobMs: wholeSecondsAsMs("API_JOB_TTL_SECONDS", 3600),
    downloadUrlMs: wholeSecondsAsMs("API_DOWNLOAD_URL_TTL_SECONDS", 3600),
    maxConcurrentJobs: Config.Int("API_MAX_CONCURRENT_JOBS").pipe(Config.withDefault(2))
  })

  static readonly layer = Layer.effect(Lifetimes, Effect.map(Lifetimes.config, Lifetimes.of))
}

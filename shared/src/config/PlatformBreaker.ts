// The platform circuit breaker's policy from the environment (the extractor decides with it; the gateway reports with it).
import { Config } from "effect"
import { type BreakerPolicy, defaultBreakerPolicy } from "../domain/platform/PlatformHealthDecider.ts"

export const PlatformBreakerConfig: Config.Config<BreakerPolicy> = Config.all({
  blocksToPause: Config.Int("PLATFORM_BLOCKS_TO_PAUSE").pipe(Config.withDefault(defaultBreakerPolicy.blocksToPause)),
  pauseSeconds: Config.Int("PLATFORM_PAUSE_SECONDS").pipe(Config.withDefault(defaultBreakerPolicy.pauseMs / 1000))
}).pipe(Config.map(({ blocksToPause, pauseSeconds }) => ({ ...defaultBreakerPolicy, blocksToPause, pauseMs: pauseSeconds * 1000 })))

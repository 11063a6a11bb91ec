// Every service logs JSON lines to stdout, at the level LOG_LEVEL sets (default Info).
import { Config, Layer, Logger, References } from "effect"

export const JsonLogging = Layer.mergeAll(
  Logger.layer([Logger.consoleJson]),
  Layer.effect(References.MinimumLogLevel, Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Info" as const)))
)

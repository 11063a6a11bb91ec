// Every service logs JSON lines to stdout, at the level LOG_LEVEL sets (default Info), with API key secrets masked.
import { Config, Layer, Logger, References } from "effect"
import { maskSecrets } from "../keys/maskSecrets.ts"

/** Masking the finished line covers every message, annotation and cause, whoever logged it. */
export const maskedJsonLogger = Logger.formatJson.pipe(Logger.map(maskSecrets), Logger.withConsoleLog)

export const JsonLogging = Layer.mergeAll(
  Logger.layer([maskedJsonLogger]),
  Layer.effect(References.MinimumLogLevel, Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Info" as const)))
)

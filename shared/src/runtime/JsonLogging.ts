// Every service logs JSON lines to stdout, at the level LOG_LEVEL sets (default Info), with credentials masked.
import { Config, Layer, Logger, References } from "effect"
import { maskSecrets } from "./SecretMasking.ts"

/** consoleJson, except that API keys, webhook secrets and link signatures never reach the output. */
export const maskedJsonLogger = Logger.formatJson.pipe(Logger.map(maskSecrets), Logger.withConsoleLog)

export const JsonLogging = Layer.mergeAll(
  Logger.layer([maskedJsonLogger]),
  Layer.effect(References.MinimumLogLevel, Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault("Info" as const)))
)

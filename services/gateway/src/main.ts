// Gateway entry point: builds the application layer once, serves /v1 on HOST:PORT, and drains NATS on shutdown.
import { Config, Effect, Layer, ManagedRuntime } from "effect"
import { JsonLogging } from "@mds/shared/runtime/JsonLogging"
import { metricsServer } from "@mds/shared/observability/MetricsServer"
import { OtlpTracing } from "@mds/shared/observability/Tracing"
import { GatewayLayer } from "./GatewayLayer.ts"
import { buildGatewayHttp } from "./app/GatewayHttp.ts"

const ServerConfig = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.Port("PORT").pipe(Config.withDefault(8080))
})

const runtime = ManagedRuntime.make(
  GatewayLayer.pipe(Layer.merge(metricsServer()), Layer.provideMerge(Layer.mergeAll(JsonLogging, OtlpTracing("mds-gateway"))), Layer.orDie)
)

const start = async () => {
  const { host, port } = await runtime.runPromise(ServerConfig)
  const app = buildGatewayHttp({ runtime })
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    await runtime.runPromise(Effect.logInfo("gateway stopping").pipe(Effect.annotateLogs({ signal })))
    await app.close()
    await runtime.dispose()
    process.exit(0)
  }
  process.once("SIGTERM", () => void shutdown("SIGTERM"))
  process.once("SIGINT", () => void shutdown("SIGINT"))
  await app.listen({ host, port })
  await runtime.runPromise(Effect.logInfo("gateway ready").pipe(Effect.annotateLogs({ host, port })))
}

start().catch(async (error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  await runtime.dispose().catch(() => undefined)
  process.exit(1)
})

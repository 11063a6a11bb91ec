// Serves GET /metrics (Prometheus text) on METRICS_HOST:METRICS_PORT when METRICS_PORT is set; scrape-time
// collectors refresh their gauges first.
import { createServer } from "node:http"
import { Config, Effect, Layer, Option } from "effect"
import { PrometheusMetrics } from "effect/observability"

const MetricsAddress = Config.all({
  port: Config.option(Config.Port("METRICS_PORT")),
  host: Config.String("METRICS_HOST").pipe(Config.withDefault("127.0.0.1"))
})

/** `collect` runs before every scrape (e.g. reading consumer lag); its failure is logged and the scrape still answers. */
export const metricsServer = <R = never>(collect: Effect.Effect<void, unknown, R> = Effect.void) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const { host, port } = yield* MetricsAddress
      if (Option.isNone(port)) return
      const context = yield* Effect.context<R>()
      const scrape = collect.pipe(
        Effect.catchCause((cause) => Effect.logWarning("metrics collection failed", cause)),
        Effect.andThen(PrometheusMetrics.format()),
        Effect.provide(context)
      )
      const server = createServer((request, response) => {
        if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
          response.writeHead(404, { "content-type": "text/plain" }).end("not found\n")
          return
        }
        Effect.runPromise(scrape).then(
          (text) => response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(text),
          () => response.writeHead(500).end()
        )
      })
      yield* Effect.acquireRelease(
        Effect.callback<void, Error>((resume) => {
          server.once("error", (error) => resume(Effect.fail(error)))
          server.listen(port.value, host, () => resume(Effect.void))
        }),
        () =>
          Effect.callback<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      ).pipe(Effect.orDie)
      yield* Effect.logInfo("metrics listening").pipe(Effect.annotateLogs({ host, port: port.value }))
    })
  )

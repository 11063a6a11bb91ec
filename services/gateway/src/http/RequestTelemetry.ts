// Per-request telemetry: a server span continuing the caller's W3C trace, log lines carrying the request id, and
// the latency histogram by route template.
import { httpRequestDuration } from "@mds/shared/observability/Metrics"
import { parentSpanFrom } from "@mds/shared/observability/TraceContext"
import { Context, Effect, Metric, Option } from "effect"
import type { FastifyReply, FastifyRequest } from "fastify"
import { type ApiFailure, toApiError } from "./ErrorMapping.ts"
import type { RouteReply } from "./Route.ts"

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

/** Wraps a route's effect: every log line inside names the request, and every span hangs under the request's span. */
export const withRequestTelemetry =
  (request: FastifyRequest, routePath: string) =>
  <R>(effect: Effect.Effect<RouteReply, ApiFailure, R>): Effect.Effect<RouteReply, ApiFailure, R> => {
    const parent = parentSpanFrom((name) => header(request, name))
    return effect.pipe(
      Effect.tap((reply) => Effect.annotateCurrentSpan("http.response.status_code", reply._tag === "File" ? 200 : reply.status)),
      Effect.tapError((failure) => Effect.annotateCurrentSpan("http.response.status_code", toApiError(failure).status)),
      Effect.withSpan(
        `${request.method} ${routePath}`,
        {
          kind: "server",
          attributes: { "http.request.method": request.method, "http.route": routePath, "mds.request_id": request.id },
          ...(Option.isSome(parent) ? { parent: parent.value } : {})
        },
        { captureStackTrace: false }
      ), // the route names the span; capturing the call site's stack was ~4% of a job read
      Effect.annotateLogs({ request_id: request.id })
    )
  }

/** One labelled series per method, route template and status, made once: labelling a metric allocates. */
const seriesByLabels = new Map<string, Metric.Metric<number, unknown>>()

/**
 * Observes a finished request's duration, synchronously: running an Effect (a fiber) per request for one histogram
 * update cost more than the update. Metrics live in the default registry, which the /metrics endpoint reads.
 * Unknown paths share one label, so scanners cannot create a series per path.
 */
export const recordRequestDuration = (request: FastifyRequest, reply: FastifyReply): void => {
  const route = request.routeOptions.url ?? "unmatched"
  const labels = `${request.method} ${route} ${reply.statusCode}`
  let series = seriesByLabels.get(labels)
  if (series === undefined) {
    series = Metric.withAttributes(httpRequestDuration, { method: request.method, route, status: String(reply.statusCode) })
    seriesByLabels.set(labels, series)
  }
  series.updateUnsafe(Math.max(0, reply.elapsedTime / 1000), Context.empty())
}

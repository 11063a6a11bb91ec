// Per-request telemetry: a server span continuing the caller's W3C trace, log lines carrying the request id, and
// the latency histogram by route template.
import { httpRequestDuration, observeSeconds } from "@mds/shared/observability/Metrics"
import { parentSpanFrom } from "@mds/shared/observability/TraceContext"
import { Effect, Option } from "effect"
import type { FastifyReply, FastifyRequest } from "fastify"
import { type ApiFailure, toApiError } from "./ErrorMapping.ts"
import type { RouteReply } from "./Route.ts"

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

/** Wraps a route's effect: every log line inside names the request, and every span hangs under the request's span. */
export const withRequestTelemetry = (request: FastifyRequest, routePath: string) =>
<R>(effect: Effect.Effect<RouteReply, ApiFailure, R>): Effect.Effect<RouteReply, ApiFailure, R> => {
  const parent = parentSpanFrom((name) => header(request, name))
  return effect.pipe(
    Effect.tap((reply) => Effect.annotateCurrentSpan("http.response.status_code", reply._tag === "Json" ? reply.status : 200)),
    Effect.tapError((failure) => Effect.annotateCurrentSpan("http.response.status_code", toApiError(failure).status)),
    Effect.withSpan(`${request.method} ${routePath}`, {
      kind: "server",
      attributes: { "http.request.method": request.method, "http.route": routePath, "mds.request_id": request.id },
      ...(Option.isSome(parent) ? { parent: parent.value } : {})
    }),
    Effect.annotateLogs({ request_id: request.id })
  )
}

/** Unknown paths share one label, so scanners cannot create a series per path. */
export const recordRequestDuration = (request: FastifyRequest, reply: FastifyReply) => {
  const ended = Date.now()
  return observeSeconds(
    httpRequestDuration,
    { method: request.method, route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) },
    ended - reply.elapsedTime,
    ended
  )
}

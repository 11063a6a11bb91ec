// Per-request telemetry: a server span continuing the caller's W3C trace, log lines carrying the request id, and
// the latency histogram by route template.
import { httpRequestDuration } from "@mds/shared/observability/Metrics"
import { parentSpanFrom } from "@mds/shared/nats/TraceContext"
import { Cause, Context, Effect, Exit, type ManagedRuntime, Metric, Option, type Tracer } from "effect"
import type { FastifyReply, FastifyRequest } from "fastify"
import { type ApiFailure, toApiError } from "./ErrorMapping.ts"
import type { RouteReply } from "./Route.ts"

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

/**
 * Opens the request's server span, continuing the caller's W3C trace; undefined when traces are not exported, so a
 * request then pays for no span at all. The route's steps run the same either way: their I/O hangs under the span.
 */
export const openRequestSpan = (
  runtime: ManagedRuntime.ManagedRuntime<never, never>,
  tracing: boolean,
  request: FastifyRequest,
  routePath: string
): Tracer.Span | undefined => {
  if (!tracing) return undefined
  const parent = parentSpanFrom((name) => header(request, name))
  return runtime.runSync(
    Effect.makeSpan(`${request.method} ${routePath}`, {
      kind: "server",
      attributes: { "http.request.method": request.method, "http.route": routePath, "mds.request_id": request.id },
      ...(Option.isSome(parent) ? { parent: parent.value } : {})
    })
  )
}

/** Ends the request's span (if any) with the answer's status code. */
export const closeRequestSpan = (span: Tracer.Span | undefined, answer: Exit.Exit<RouteReply, ApiFailure>, endTime: bigint) => {
  if (span === undefined) return
  const status = Exit.isSuccess(answer)
    ? answer.value._tag === "File"
      ? 200
      : answer.value.status
    : Option.match(Cause.findErrorOption(answer.cause), { onNone: () => 500, onSome: (failure) => toApiError(failure).status })
  span.attribute("http.response.status_code", status)
  span.end(endTime, answer)
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

// W3C trace context across NATS: the current span goes into message headers, and a consumer continues the trace.
import { headers as natsHeaders, type MsgHdrs } from "@nats-io/transport-node"
import { Effect, Option, type Tracer } from "effect"
import * as Headers from "effect/http/Headers"
import * as HttpTraceContext from "effect/http/HttpTraceContext"

const PROPAGATED = ["traceparent", "tracestate", "b3"] as const

/** Headers carrying the current span (none outside a span). */
export const currentTraceHeaders: Effect.Effect<MsgHdrs | undefined> = Effect.map(Effect.option(Effect.currentSpan), (span) => {
  if (Option.isNone(span)) return undefined
  const carried = HttpTraceContext.toHeaders(span.value)
  const out = natsHeaders()
  for (const name of PROPAGATED) {
    const value = carried[name]
    if (value !== undefined) out.set(name, value)
  }
  return out
})

/** The remote parent span a message or HTTP request names, if any. */
export const parentSpanFrom = (get: (name: string) => string | undefined): Option.Option<Tracer.ExternalSpan> => {
  const found: Record<string, string> = {}
  for (const name of PROPAGATED) {
    const value = get(name)
    if (value !== undefined && value !== "") found[name] = value
  }
  return HttpTraceContext.fromHeaders(Headers.fromInput(found))
}

/** Runs `effect` in a span that continues the trace of the message it handles. */
export const withMessageSpan =
  (name: string, messageHeaders: MsgHdrs | undefined, attributes: Record<string, unknown> = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) => {
    const parent = parentSpanFrom((header) => messageHeaders?.get(header) || undefined)
    return effect.pipe(
      Effect.withSpan(name, {
        kind: "consumer",
        attributes,
        ...(Option.isSome(parent) ? { parent: parent.value } : {})
      })
    )
  }

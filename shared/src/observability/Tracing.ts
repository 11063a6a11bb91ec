// OpenTelemetry traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set; off otherwise.
import { Config, Effect, Layer, Option, References } from "effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

const TracingConfig = Config.all({
  tracesEndpoint: Config.option(Config.String("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  endpoint: Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT")),
  protocol: Config.String("OTEL_EXPORTER_OTLP_PROTOCOL").pipe(Config.withDefault("http/protobuf")),
  serviceName: Config.option(Config.String("OTEL_SERVICE_NAME")),
  disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false))
})

/** The signal URL as the OTLP exporter specification builds it: a base endpoint gets `/v1/traces` appended. */
export const tracesUrl = (tracesEndpoint: Option.Option<string>, endpoint: Option.Option<string>): Option.Option<string> => {
  // An empty variable (compose passes `${OTEL_EXPORTER_OTLP_ENDPOINT:-}`) means "not configured".
  const given = (value: Option.Option<string>) => Option.filter(value, (text) => text.trim() !== "")
  return Option.orElse(given(tracesEndpoint), () => Option.map(given(endpoint), (base) => `${base.replace(/\/+$/, "")}/v1/traces`))
}

/** Provides the tracer every Effect span (Effect.fn, withSpan) reports to; `serviceName` unless OTEL_SERVICE_NAME. */
export const OtlpTracing = (serviceName: string) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* TracingConfig
      const url = tracesUrl(config.tracesEndpoint, config.endpoint)
      // With nowhere to send them, spans are not made at all (each costs a span object and a stack capture per call).
      if (config.disabled || Option.isNone(url)) return Layer.succeed(References.TracerEnabled, false)
      const serialization = config.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
      yield* Effect.logInfo("exporting traces").pipe(Effect.annotateLogs({ url: url.value, protocol: config.protocol }))
      return OtlpTracer.layer({
        url: url.value,
        resource: { serviceName: Option.getOrElse(config.serviceName, () => serviceName) },
        exportInterval: "1 second"
      }).pipe(Layer.provide(Layer.mergeAll(serialization, FetchHttpClient.layer)))
    })
  )

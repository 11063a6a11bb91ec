// Entry point of the extractor service: compose the application layer and run it until SIGTERM/SIGINT.
import { Layer } from "effect"
import { runService } from "@mds/shared/runtime/runService"
import { JsonLogging } from "@mds/shared/runtime/JsonLogging"
import { metricsServer } from "@mds/shared/observability/MetricsServer"
import { OtlpTracing } from "@mds/shared/observability/Tracing"
import { ExtractorLayer } from "./ExtractorLayer.ts"

runService(Layer.mergeAll(ExtractorLayer, metricsServer()).pipe(Layer.provide(Layer.mergeAll(JsonLogging, OtlpTracing("mds-extractor")))))

// Aggregator entry point: composes the layers and runs until SIGTERM/SIGINT (consumers stop, NATS drains).
import { Layer } from "effect"
import { runService } from "@mds/shared/runtime/runService"
import { JsonLogging } from "@mds/shared/runtime/JsonLogging"
import { OtlpTracing } from "@mds/shared/observability/Tracing"
import { AggregatorLayer } from "./AggregatorLayer.ts"

runService(AggregatorLayer.pipe(Layer.provide(Layer.mergeAll(JsonLogging, OtlpTracing("mds-aggregator")))))

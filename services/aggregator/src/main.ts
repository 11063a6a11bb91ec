// Aggregator entry point: composes the layers and runs until SIGTERM/SIGINT (consumers stop, NATS drains).
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { AggregatorLayer, JsonLogging } from "./AggregatorLayer.ts"

AggregatorLayer.pipe(Layer.provide(JsonLogging), Layer.launch, NodeRuntime.runMain)

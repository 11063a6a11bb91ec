// Entry point of the extractor service: compose the application layer and run it until SIGTERM/SIGINT.
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { ExtractorLayer, JsonLogging } from "./ExtractorLayer.ts"

NodeRuntime.runMain(Layer.launch(ExtractorLayer.pipe(Layer.provide(JsonLogging))))

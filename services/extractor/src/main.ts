// Entry point of the extractor service: compose the application layer and run it until SIGTERM/SIGINT.
import { Layer } from "effect"
import { runService } from "@mds/shared/runtime/runService"
import { JsonLogging } from "@mds/shared/runtime/JsonLogging"
import { ExtractorLayer } from "./ExtractorLayer.ts"

runService(ExtractorLayer.pipe(Layer.provide(JsonLogging)))

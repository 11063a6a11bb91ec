// Runs the project and key read-model contracts against the in-memory and the NATS KV adapters.
import { Layer } from "effect"
import { InMemoryKeyReadModel, InMemoryProjectReadModel } from "@mds/shared/readmodel/memory/InMemoryAccountReadModels"
import { KvKeyReadModel } from "@mds/shared/readmodel/kv/KvKeyReadModel"
import { KvProjectReadModel } from "@mds/shared/readmodel/kv/KvProjectReadModel"
import { TestNats } from "../support/TestNats.ts"
import { keyReadModelContract, projectReadModelContract } from "./AccountReadModels.contract.ts"

projectReadModelContract("in-memory", InMemoryProjectReadModel.layer)
keyReadModelContract("in-memory", InMemoryKeyReadModel.layer)
projectReadModelContract("NATS KV", KvProjectReadModel.layer.pipe(Layer.provide(TestNats)))
keyReadModelContract("NATS KV", KvKeyReadModel.layer.pipe(Layer.provide(TestNats)))

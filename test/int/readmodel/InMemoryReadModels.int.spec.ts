// Runs the read-model contract suites against the in-memory adapters (and the media cache in front of one).
import { Layer } from "effect"
import { CachedMediaReadModel } from "@mds/shared/readmodel/CachedMediaReadModel"
import { InMemoryJobReadModel } from "@mds/shared/readmodel/memory/InMemoryJobReadModel"
import { InMemoryMediaReadModel } from "@mds/shared/readmodel/memory/InMemoryMediaReadModel"
import { InMemoryReadModelStores } from "@mds/shared/readmodel/memory/InMemoryReadModelStores"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract } from "./MediaReadModel.contract.ts"
import { readModelStoresContract } from "./ReadModelStores.contract.ts"
import { InMemoryUsageReadModel } from "@mds/shared/readmodel/memory/InMemoryUsageReadModel"
import { usageReadModelContract } from "./UsageReadModel.contract.ts"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import { subscriptionReadModelContract } from "./SubscriptionReadModel.contract.ts"

jobReadModelContract("in-memory", InMemoryJobReadModel.layer)
mediaReadModelContract("in-memory", InMemoryMediaReadModel.layer)
mediaReadModelContract("cached, in front of in-memory", CachedMediaReadModel.layer.pipe(Layer.provide(InMemoryMediaReadModel.layer)))
readModelStoresContract("in-memory", InMemoryReadModelStores.layer)
usageReadModelContract("in-memory", InMemoryUsageReadModel.layer)
subscriptionReadModelContract("in-memory", InMemorySubscriptionReadModel.layer)

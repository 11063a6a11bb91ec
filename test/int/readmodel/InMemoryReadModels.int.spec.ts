// Runs the read-model contract suites against the in-memory adapters.
import { InMemoryJobReadModel } from "@mds/shared/readmodel/InMemoryJobReadModel"
import { InMemoryMediaReadModel } from "@mds/shared/readmodel/InMemoryMediaReadModel"
import { InMemoryReadModelStores } from "@mds/shared/readmodel/InMemoryReadModelStores"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract } from "./MediaReadModel.contract.ts"
import { readModelStoresContract } from "./ReadModelStores.contract.ts"

jobReadModelContract("in-memory", InMemoryJobReadModel.layer)
mediaReadModelContract("in-memory", InMemoryMediaReadModel.layer)
readModelStoresContract("in-memory", InMemoryReadModelStores.layer)

// Runs the read-model contract suites against the in-memory adapters.
import { InMemoryJobReadModel } from "@mds/shared/readmodel/InMemoryJobReadModel"
import { InMemoryMediaReadModel } from "@mds/shared/readmodel/InMemoryMediaReadModel"
import { jobReadModelContract } from "./JobReadModel.contract.ts"
import { mediaReadModelContract } from "./MediaReadModel.contract.ts"

jobReadModelContract("in-memory", InMemoryJobReadModel.layer)
mediaReadModelContract("in-memory", InMemoryMediaReadModel.layer)

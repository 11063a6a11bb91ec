// Runs the session store contract against the in-memory and the NATS KV adapters.
import { Layer } from "effect"
import { InMemorySessionStore, KvSessionStore } from "../../src/dashboard/session/SessionStores.ts"
import { TestNats } from "../../../../test/int/support/TestNats.ts"
import { sessionStoreContract } from "./SessionStore.contract.ts"

sessionStoreContract("in-memory", InMemorySessionStore.layer)
sessionStoreContract("NATS KV", KvSessionStore.layerWith("test_sessions", 3_600_000).pipe(Layer.provide(TestNats)))

// The dashboard's services: configuration, the session store (NATS KV), sign-in, and the bootstrap admin.
import { Layer } from "effect"
import { AdminBootstrap } from "./AdminBootstrap.ts"
import { DashboardConfig } from "./DashboardConfig.ts"
import { DashboardAuth } from "./session/DashboardAuth.ts"
import { KvSessionStore } from "./session/SessionStores.ts"

export const DashboardLayer = Layer.mergeAll(DashboardAuth.layer.pipe(Layer.provideMerge(KvSessionStore.layer)), AdminBootstrap).pipe(
  Layer.provideMerge(DashboardConfig.layer)
)

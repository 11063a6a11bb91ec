// The aggregator's account and subscription projections beside an in-process gateway, so lists served from read models
// fill as they do in production (the gateway reads them; the aggregator is their one writer).
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvKeyReadModel } from "@mds/shared/readmodel/kv/KvKeyReadModel"
import { KvProjectReadModel } from "@mds/shared/readmodel/kv/KvProjectReadModel"
import { KvSubscriptionReadModel } from "@mds/shared/readmodel/kv/KvSubscriptionReadModel"
import { AccountProjection, accountsProjection, keyUsageProjection } from "../../aggregator/src/accounts/AccountProjection.ts"
import { runProjections } from "../../aggregator/src/projections/Aggregator.ts"
import { SubjectHistory } from "../../aggregator/src/projections/SubjectHistory.ts"
import { SubscriptionProjection, subscriptionsProjection } from "../../aggregator/src/subscriptions/SubscriptionProjection.ts"
import { Parking } from "../../aggregator/src/consumers/Parking.ts"

/** Starts the projections on the NATS server `env` names; dispose the runtime to stop them. */
export const startListProjections = async (env: Record<string, string>) => {
  const runtime = ManagedRuntime.make(
    runProjections([accountsProjection, keyUsageProjection, subscriptionsProjection]).pipe(
      Layer.provide(Layer.mergeAll(AccountProjection.layer, SubscriptionProjection.layer)),
      Layer.provide(Layer.mergeAll(KvProjectReadModel.layer, KvKeyReadModel.layer, KvSubscriptionReadModel.layer, SubjectHistory.layer)),
      Layer.provide(Layer.mergeAll(Lifetimes.layer, Parking.layer)),
      Layer.provideMerge(NatsClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
      Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
  return runtime
}

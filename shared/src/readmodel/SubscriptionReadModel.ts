// Port: the subscription list read model (each subscription's state without its seen keys), written by the aggregator's
// subscription projection and read by GET /v1/subscriptions and the dashboard. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect, type Option } from "effect"
import type { SubscriptionListView } from "../domain/subscription/SubscriptionListView.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class SubscriptionReadModel extends Context.Service<
  SubscriptionReadModel,
  {
    get(projectId: string, subscriptionId: string): Effect.Effect<Option.Option<SubscriptionListView>, ReadModelError>
    /** Insert or replace the subscription's document; one of a later lastSeq is never replaced. */
    put(view: SubscriptionListView): Effect.Effect<void, ReadModelError>
    /** Every document of the project (removed ones too), in no order: `listedSubscriptions` makes the list. */
    listByProject(projectId: string): Effect.Effect<ReadonlyArray<SubscriptionListView>, ReadModelError>
  }
>()("mds/readmodel/SubscriptionReadModel") {}

// Port: the subscription read model (each subscription's whole state, its seen keys as bounded digests), written by the
// aggregator's subscription projection; the snapshot every read of a subscription starts from (SubscriptionStates), read
// by GET /v1/subscriptions, the dashboard and the check reconcile. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect, type Option } from "effect"
import type { LiveSubscription, SubscriptionListView } from "../domain/subscription/SubscriptionListView.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class SubscriptionReadModel extends Context.Service<
  SubscriptionReadModel,
  {
    get(projectId: string, subscriptionId: string): Effect.Effect<Option.Option<SubscriptionListView>, ReadModelError>
    /** Insert or replace the subscription's document; one of a later lastSeq is never replaced. */
    put(view: SubscriptionListView): Effect.Effect<void, ReadModelError>
    /** Every document of the project (removed ones too), in no order: `listedSubscriptions` makes the list. */
    listByProject(projectId: string): Effect.Effect<ReadonlyArray<SubscriptionListView>, ReadModelError>
    /**
     * Every live subscription of every project (removed ones are not listed), as small rows (`liveOfView`), in no order:
     * what the check reconcile looks at, costing a row per live subscription, not a document per one ever created.
     */
    listLive(): Effect.Effect<ReadonlyArray<LiveSubscription>, ReadModelError>
  }
>()("mds/readmodel/SubscriptionReadModel") {}

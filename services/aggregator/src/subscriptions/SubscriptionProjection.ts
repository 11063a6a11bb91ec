// The subscription list projection: each subscription's state without its seen keys, caught up from its subject.
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { evolveSubscriptionListView, type SubscriptionListView } from "@mds/shared/domain/subscription/SubscriptionListView"
import { SUBSCRIPTIONS_STREAM } from "@mds/shared/eventstore/Subjects"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { projection } from "../projections/Projection.ts"
import { catchUpSubject } from "../projections/SubjectCatchUp.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"

const decodeSubscriptionEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(SubscriptionEvent))

export type SubscriptionProjectionOutcome = "written" | "unchanged"

/**
 * Folds the subject mds.subscription.<projectId>.<subscriptionId> after the stored document's lastSeq, up to `uptoSeq`
 * (read from the stream: a message redelivered after later ones loses nothing), with the aggregate's own evolve.
 */
export const makeSubscriptionCatchUp = (readModel: SubscriptionReadModel["Service"], history: SubjectHistory["Service"]) =>
  Effect.fn("SubscriptionProjection.catchUp")(function* (subject: string, uptoSeq: number) {
    const [, , projectId, subscriptionId] = subject.split(".")
    if (projectId === undefined || subscriptionId === undefined) return "unchanged" as const
    const stored = Option.getOrNull(yield* readModel.get(projectId, subscriptionId))
    return yield* catchUpSubject<SubscriptionListView, SubscriptionEvent, ReadModelError, never>({
      history,
      stream: SUBSCRIPTIONS_STREAM.name,
      subject,
      uptoSeq,
      stored,
      decode: decodeSubscriptionEvent,
      evolve: evolveSubscriptionListView,
      put: readModel.put
    })
  })

export class SubscriptionProjection extends Context.Service<
  SubscriptionProjection,
  { catchUp(subject: string, uptoSeq: number): Effect.Effect<SubscriptionProjectionOutcome, unknown> }
>()("mds/aggregator/SubscriptionProjection") {
  static readonly layer = Layer.effect(
    SubscriptionProjection,
    Effect.gen(function* () {
      return SubscriptionProjection.of({ catchUp: makeSubscriptionCatchUp(yield* SubscriptionReadModel, yield* SubjectHistory) })
    })
  )
}

/** mds.subscription.> into the subscription list read model. */
export const subscriptionsProjection = projection({
  stream: SUBSCRIPTIONS_STREAM.name,
  durable: "aggregator-subscriptions",
  filter: SUBSCRIPTIONS_STREAM.subjects[0]!,
  decode: decodeSubscriptionEvent,
  project: (_event: SubscriptionEvent, message) =>
    Effect.flatMap(SubscriptionProjection, (subscriptions) => subscriptions.catchUp(message.subject, message.seq))
})

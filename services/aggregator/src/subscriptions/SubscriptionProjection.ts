// The subscription projection: each subscription's whole state (its seen keys as bounded digests), caught up from its
// subject: the list's document and the snapshot every read of the subscription starts from.
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { evolveSubscriptionListView, isWholeView, type SubscriptionListView } from "@mds/shared/domain/subscription/SubscriptionListView"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { SUBSCRIPTIONS_STREAM, subscriptionSubject } from "@mds/shared/nats/Subjects"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { projection } from "../projections/Projection.ts"
import { catchUpSubject } from "../projections/SubjectCatchUp.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"

const decodeSubscriptionEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(SubscriptionEvent))

export type SubscriptionProjectionOutcome = "written" | "unchanged"

/**
 * Folds a subscription's subject after the stored document's lastSeq, up to `uptoSeq`
 * (read from the stream: a message redelivered after later ones loses nothing), with the aggregate's own evolve.
 */
export const makeSubscriptionCatchUp = (readModel: SubscriptionReadModel["Service"], history: SubjectHistory["Service"]) =>
  Effect.fn("SubscriptionProjection.catchUp")(function* (subject: string, uptoSeq: number) {
    const ids = subscriptionSubject.parse(subject)
    if (Option.isNone(ids)) return yield* Effect.as(stepOverSubject("subscription projection", subject), "unchanged" as const)
    const { projectId, subscriptionId } = ids.value
    const found = Option.getOrNull(yield* readModel.get(projectId, subscriptionId))
    // A document written before it held the whole state is no base to fold on: the subject is folded from its start.
    const stored = found !== null && isWholeView(found) ? found : null
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
  filter: subscriptionSubject.all,
  decode: decodeSubscriptionEvent,
  project: (_event: SubscriptionEvent, message) =>
    Effect.flatMap(SubscriptionProjection, (subscriptions) => subscriptions.catchUp(message.subject, message.seq))
})

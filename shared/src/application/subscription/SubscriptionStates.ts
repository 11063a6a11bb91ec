// A subscription's current state, asked for (Emmett's aggregateStream, like JobStates): its read-model document as
// snapshot plus the subscription's events after it, folded with its one evolve; a read that costs the same after a
// thousand checks as after one.
import { Context, Effect, Layer, Option } from "effect"
import { SubscriptionDecider } from "../../domain/subscription/SubscriptionDecider.ts"
import { SubscriptionEvent } from "../../domain/subscription/SubscriptionEvent.ts"
import { subscriptionOfView } from "../../domain/subscription/SubscriptionListView.ts"
import type { SubscriptionState } from "../../domain/subscription/SubscriptionState.ts"
import { replayAggregate } from "../../eventstore/CommandHandler.ts"
import { EventStore, type EventStoreError } from "../../eventstore/EventStore.ts"
import { subscriptionSubject } from "../../nats/Subjects.ts"
import { SubscriptionReadModel } from "../../readmodel/SubscriptionReadModel.ts"

export interface CurrentSubscription {
  readonly state: SubscriptionState
  /** The subject's sequence of the last event folded in (0: none): a command appends expecting it. */
  readonly lastSeq: number
}

export class SubscriptionStates extends Context.Service<
  SubscriptionStates,
  {
    /**
     * The subscription's state as of its latest stored event; with `uptoSeq`, as it was right after its event at that
     * stream sequence (a webhook's subscription as GET /subscriptions/{id} answered then). Without a whole document
     * not past that point (none yet, one written before the document held the whole state, a read model that cannot be
     * read, a document already past `uptoSeq`), every event of the subject up to it is folded.
     */
    current(
      projectId: string,
      subscriptionId: string,
      options?: { readonly uptoSeq?: number }
    ): Effect.Effect<CurrentSubscription, EventStoreError>
  }
>()("mds/subscriptions/SubscriptionStates") {
  static readonly layer = Layer.effect(
    SubscriptionStates,
    Effect.gen(function* () {
      const store = yield* EventStore
      const readModel = yield* SubscriptionReadModel
      const current = Effect.fn("SubscriptionStates.current")(function* (
        projectId: string,
        subscriptionId: string,
        options?: { readonly uptoSeq?: number }
      ) {
        const subject = subscriptionSubject(projectId, subscriptionId)
        const uptoSeq = options?.uptoSeq
        const doc = yield* readModel.get(projectId, subscriptionId).pipe(
          Effect.map(Option.getOrNull),
          Effect.orElseSucceed(() => null)
        )
        const snapshot = doc === null || (uptoSeq !== undefined && doc.lastSeq > uptoSeq) ? null : subscriptionOfView(doc)
        if (doc === null || snapshot === null) {
          return yield* replayAggregate(SubscriptionDecider, SubscriptionEvent, subject, uptoSeq === undefined ? {} : { uptoSeq }).pipe(
            Effect.provideService(EventStore, store)
          )
        }
        const events = yield* store.readSubject(SubscriptionEvent, subject, doc.lastSeq, uptoSeq)
        let state: SubscriptionState = snapshot
        for (const stored of events) state = SubscriptionDecider.evolve(state, stored.event)
        return { state, lastSeq: events.at(-1)?.seq ?? doc.lastSeq } satisfies CurrentSubscription
      })
      return SubscriptionStates.of({ current })
    })
  )
}

// Extension: a subscription as the list read model keeps it: its state without the seen keys, and the last event folded.
import { Schema } from "effect"
import { CheckError, SubscriptionCreated, type SubscriptionEvent } from "./SubscriptionEvent.ts"
import { evolveSubscription, type Subscription, type SubscriptionSummary } from "./SubscriptionState.ts"

/** What the subscription was created with, as its creation event says it (a field added there is kept here too). */
const { _tag: _createdTag, v: _createdVersion, ...created } = SubscriptionCreated.fields

export const SubscriptionListView = Schema.Struct({
  ...created,
  paused: Schema.Boolean,
  /** Kept (and left out of lists): a redelivered earlier event must not bring a removed subscription back. */
  removed: Schema.Boolean,
  lastCheck: Schema.NullOr(
    Schema.Struct({ at: Schema.Number, found: Schema.Number, new: Schema.Number, filtered: Schema.Number, queued: Schema.Number })
  ),
  nextCheckAt: Schema.Number,
  failuresInARow: Schema.Number,
  lastError: Schema.NullOr(CheckError),
  /** The subject's sequence of the last event folded in. */
  lastSeq: Schema.Number
})
export type SubscriptionListView = typeof SubscriptionListView.Type

const NO_KEYS: ReadonlySet<string> = new Set()

const summaryOf = ({ seen: _seen, ...summary }: Subscription): SubscriptionSummary => summary

/**
 * The aggregate's own evolve, on the document: the seen keys are not kept (they only grow the document and no list
 * shows them), which changes nothing else of the state. A replay from the subject's start gives the same document.
 */
export const evolveSubscriptionListView = (
  doc: SubscriptionListView | null,
  event: SubscriptionEvent,
  seq: number
): SubscriptionListView | null => {
  let state: Subscription | null = null
  if (doc !== null) {
    const { lastSeq: _lastSeq, ...summary } = doc
    state = { ...summary, seen: NO_KEYS }
  }
  const next = evolveSubscription(state, event)
  return next === null ? null : { ...summaryOf(next), lastSeq: seq }
}

/** The project's live subscriptions in a list's order: oldest first. */
export const listedSubscriptions = (views: ReadonlyArray<SubscriptionListView>): ReadonlyArray<SubscriptionListView> =>
  views
    .filter((view) => !view.removed)
    .sort((a, b) => a.createdAt - b.createdAt || (a.subscriptionId < b.subscriptionId ? -1 : a.subscriptionId > b.subscriptionId ? 1 : 0))

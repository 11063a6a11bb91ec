// Extension: a subscription as its read model keeps it: its whole state (the seen keys as bounded digests), and the last
// event folded; the snapshot every read of the subscription starts from, and what lists show.
import { Schema } from "effect"
import { CheckError, LibraryEntry, QueuedEntry, SubscriptionCreated, type SubscriptionEvent } from "./SubscriptionEvent.ts"
import { evolveSubscription, inFlightEntries, type Subscription, type SubscriptionSummary } from "./SubscriptionState.ts"

/** What the subscription was created with, as its creation event says it (a field added there is kept here too). */
const { _tag: _createdTag, v: _createdVersion, ...created } = SubscriptionCreated.fields

const TrackedEntryDoc = Schema.Struct({
  ...QueuedEntry.fields,
  failures: Schema.Number,
  batchId: Schema.NullOr(Schema.String),
  waitingFor: Schema.NullOr(CheckError)
})

const GivenUpDoc = Schema.Struct({ ...QueuedEntry.fields, reason: CheckError, at: Schema.Number })

const OpenPlanDoc = Schema.Struct({
  dueAt: Schema.Number,
  at: Schema.Number,
  mediaId: Schema.String,
  platform: Schema.String,
  found: Schema.Number,
  new: Schema.Number,
  filtered: Schema.Number,
  candidates: Schema.Array(QueuedEntry),
  requeue: Schema.Array(Schema.String),
  limit: Schema.NullOr(Schema.Number),
  hold: Schema.NullOr(CheckError)
})

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
  /**
   * The rest of the state, which makes the document the subscription's snapshot: absent in documents written before
   * (they show as a subscription with nothing in flight, and are no snapshot: a read replays the subject).
   */
  seen: Schema.optionalKey(Schema.Array(Schema.String)),
  plan: Schema.optionalKey(Schema.NullOr(OpenPlanDoc)),
  entries: Schema.optionalKey(Schema.Array(TrackedEntryDoc)),
  downloaded: Schema.optionalKey(Schema.Number),
  givenUp: Schema.optionalKey(Schema.Number),
  lastGivenUp: Schema.optionalKey(Schema.Array(GivenUpDoc)),
  /** Absent in documents written before retention kept its library (nothing recorded in it yet then). */
  library: Schema.optionalKey(Schema.Array(LibraryEntry)),
  /** The subject's sequence of the last event folded in. */
  lastSeq: Schema.Number
})
export type SubscriptionListView = typeof SubscriptionListView.Type

/** The document of a state, as of the subject's sequence `lastSeq`. */
export const viewOfSubscription = (state: Subscription, lastSeq: number): SubscriptionListView => {
  const { seen, ...rest } = state
  return { ...rest, seen: [...seen], lastSeq }
}

/** What lists and answers show of a document; one written before the state was whole shows nothing in flight. */
export const summaryOfView = (view: SubscriptionListView): SubscriptionSummary => {
  const { seen: _seen, lastSeq: _lastSeq, plan, entries, downloaded, givenUp, lastGivenUp, library, ...rest } = view
  return {
    ...rest,
    plan: plan ?? null,
    entries: entries ?? [],
    downloaded: downloaded ?? 0,
    givenUp: givenUp ?? 0,
    lastGivenUp: lastGivenUp ?? [],
    library: library ?? []
  }
}

/** The state a document holds, or null for one written before the state was whole (no snapshot: replay instead). */
export const subscriptionOfView = (view: SubscriptionListView): Subscription | null =>
  view.seen === undefined ? null : { ...summaryOfView(view), seen: new Set(view.seen) }

/**
 * The aggregate's own evolve, on the document. A document written before the state was whole is no base to fold on:
 * null then, and the projection folds the subject from its start (`isWholeView`). A replay from the subject's start
 * gives the same document.
 */
export const evolveSubscriptionListView = (
  doc: SubscriptionListView | null,
  event: SubscriptionEvent,
  seq: number
): SubscriptionListView | null => {
  const state = doc === null ? null : subscriptionOfView(doc)
  const next = evolveSubscription(state, event)
  return next === null ? null : viewOfSubscription(next, seq)
}

/** Whether the document holds the whole state (a snapshot to fold on). */
export const isWholeView = (view: SubscriptionListView): boolean => view.seen !== undefined

/** The project's live subscriptions in a list's order: oldest first. */
export const listedSubscriptions = (views: ReadonlyArray<SubscriptionListView>): ReadonlyArray<SubscriptionListView> =>
  views
    .filter((view) => !view.removed)
    .sort((a, b) => a.createdAt - b.createdAt || (a.subscriptionId < b.subscriptionId ? -1 : a.subscriptionId > b.subscriptionId ? 1 : 0))

/** A live subscription as the check reconcile lists it: what says a check is due or entries are in flight. */
export const LiveSubscription = Schema.Struct({
  projectId: Schema.String,
  subscriptionId: Schema.String,
  paused: Schema.Boolean,
  nextCheckAt: Schema.Number,
  /** Entries in flight in its batches. */
  inFlight: Schema.Number,
  lastSeq: Schema.Number
})
export type LiveSubscription = typeof LiveSubscription.Type

/** The live listing's row of a document; null for a removed subscription (listed nowhere). */
export const liveOfView = (view: SubscriptionListView): LiveSubscription | null =>
  view.removed
    ? null
    : {
        projectId: view.projectId,
        subscriptionId: view.subscriptionId,
        paused: view.paused,
        nextCheckAt: view.nextCheckAt,
        inFlight: inFlightEntries({ entries: view.entries ?? [] }).length,
        lastSeq: view.lastSeq
      }

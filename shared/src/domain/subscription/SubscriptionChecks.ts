// Extension: the subscription checks' pure reaction: from a subscription's one state, whether to record what became of
// its entries in flight, and whether to run its due check now.
import type { React, Wake } from "../Reaction.ts"
import { inFlightEntries, isCheckDue, type Subscription, type SubscriptionState } from "./SubscriptionState.ts"

/**
 * What woke the reaction, and when: an event of the subscription (created, check now, resumed, checked, failed, ...)
 * or the reconcile, which is how a check whose time came, or an entry whose job ended, is found (no subscription event
 * announces either). It decides from the state read after it, whichever it was.
 */
export type CheckTrigger = Wake<"SubscriptionRecorded" | "Reconcile">

/**
 * The reaction's commands. Each is safe to repeat: Settle appends only outcomes of entries still in flight, and RunCheck
 * runs only for the holder of the check's fleet-wide lock, whose plan, claims, batch and record are named by the
 * subscription and the due time (`SubscriptionCheck.ts`).
 */
export type CheckReaction =
  /** Read the batches and jobs of the entries in flight and record those that ended (EntryOutcomes.ts). */
  | { readonly _tag: "Settle" }
  /** Run the check of the due time `dueAt` (the subscription's `nextCheckAt`). */
  | { readonly _tag: "RunCheck"; readonly dueAt: number }
  /** The subscription is removed: no check of it is ever due again. */
  | { readonly _tag: "StopChecking" }

/**
 * Entries in flight are looked at first (so the check sees which of them wait again); a due check is run; a removed
 * subscription stops being checked; anything else (not created yet, paused, not due yet) asks for nothing: the
 * reconcile looks again when its time came.
 */
export const react: React<SubscriptionState, CheckTrigger, CheckReaction> = (state, trigger) => {
  if (state === null) return []
  if (state.removed) return [{ _tag: "StopChecking" }]
  const reactions: Array<CheckReaction> = []
  if (inFlightEntries(state).length > 0) reactions.push({ _tag: "Settle" })
  if (isCheckDue(state, trigger.now)) reactions.push({ _tag: "RunCheck", dueAt: state.nextCheckAt })
  return reactions
}

/** A live subscription as the reconcile lists it (LiveSubscription in SubscriptionListView.ts). */
export type CheckSnapshot = Pick<Subscription, "removed" | "paused" | "nextCheckAt"> & { readonly inFlight: number }

/**
 * Whether the reconcile must read the subscription's state: a check is due, or entries are in flight (their jobs may
 * have ended). A live subscription with neither needs no read: only an event can make it due before its time, and the
 * event wakes its round itself.
 */
export const mayHaveWork = (snapshot: CheckSnapshot, now: number): boolean => snapshot.inFlight > 0 || isCheckDue(snapshot, now)

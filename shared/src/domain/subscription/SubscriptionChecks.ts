// Extension: the subscription checks' pure reaction: from a subscription's one state, whether to run its due check now.
import type { React, Wake } from "../Reaction.ts"
import { isCheckDue, type Subscription, type SubscriptionState } from "./SubscriptionState.ts"

/**
 * What woke the reaction, and when: an event of the subscription (created, check now, resumed, checked, failed, ...)
 * or the reconcile, which is how a check whose time came is found (no event announces it). It decides from the state
 * read after it, whichever it was.
 */
export type CheckTrigger = Wake<"SubscriptionRecorded" | "Reconcile">

/**
 * The reaction's commands. RunCheck is safe to repeat: only the holder of the check's fleet-wide lock runs it, and a
 * check's claims, batch and record are named by the subscription and the due time (`SubscriptionCheck.ts`).
 */
export type CheckReaction =
  /** Run the check of the due time `dueAt` (the subscription's `nextCheckAt`). */
  | { readonly _tag: "RunCheck"; readonly dueAt: number }
  /** The subscription is removed: no check of it is ever due again. */
  | { readonly _tag: "StopChecking" }

/**
 * A due check is run now; a removed subscription stops being checked; anything else (not created yet, paused, not
 * due yet) asks for nothing: the reconcile looks again when its time came.
 */
export const react: React<SubscriptionState, CheckTrigger, CheckReaction> = (state, trigger) => {
  if (state === null) return []
  if (state.removed) return [{ _tag: "StopChecking" }]
  return isCheckDue(state, trigger.now) ? [{ _tag: "RunCheck", dueAt: state.nextCheckAt }] : []
}

/** A subscription as a snapshot shows it (the list read model's document), and the last event it folded in. */
export type CheckSnapshot = Pick<Subscription, "removed" | "paused" | "nextCheckAt"> & { readonly lastSeq: number }

/**
 * Whether the reconcile must read the subscription's state: when its snapshot is missing or behind its subject (an
 * event not folded in yet may make it due: check now, resumed), or when the snapshot says a check is due. A
 * snapshot that is current and says not due needs no read: only an event can make it due before its time.
 */
export const mayBeDue = (snapshot: CheckSnapshot | null, lastSeq: number, now: number): boolean =>
  snapshot === null || snapshot.lastSeq < lastSeq || isCheckDue(snapshot, now)

// Extension: what a subscription event announces to the project's webhook endpoint, if anything. Pure.
import type { WebhookEventType } from "../webhook/WebhookEvent.ts"
import type { CheckError, QueuedEntry, SubscriptionEvent } from "./SubscriptionEvent.ts"

/** An event a subscription's webhooks send: its type, what names it among the subscription's events, and when. */
export type SubscriptionAnnouncement =
  | {
      readonly type: Extract<WebhookEventType, "subscription.entries_queued">
      readonly seed: string
      readonly at: number
      readonly batchId: string
      readonly entries: ReadonlyArray<QueuedEntry>
    }
  | {
      readonly type: Extract<WebhookEventType, "subscription.failing">
      readonly seed: string
      readonly at: number
      readonly error: CheckError
    }

/**
 * Entries a check queued (one batch per check: the batch names the event), or the subscription starting to fail
 * (failing again after a recovery is another event: its time names it). Nothing else is announced.
 */
export const announcementOf = (event: SubscriptionEvent): SubscriptionAnnouncement | null => {
  switch (event._tag) {
    case "SubscriptionEntriesQueued":
      return { type: "subscription.entries_queued", seed: event.batchId, at: event.at, batchId: event.batchId, entries: event.entries }
    case "SubscriptionFailing":
      return { type: "subscription.failing", seed: `failing@${event.at}`, at: event.at, error: event.error }
    case "SubscriptionCreated":
    case "SubscriptionCheckPlanned":
    case "SubscriptionChecked":
    case "SubscriptionEntriesSettled":
    case "SubscriptionCheckFailed":
    case "SubscriptionCheckDue":
    case "SubscriptionPaused":
    case "SubscriptionResumed":
    case "SubscriptionRemoved":
    case "SubscriptionEntriesDelivered":
    case "SubscriptionEntriesRemoved":
      return null
  }
}

// Webhook events (extension): a project's endpoint (mds.webhook.config.<projectId>) and its delivery log
// (mds.webhook.delivery.<projectId>).
import { Schema } from "effect"

const V1 = Schema.Literal(1)

export const WebhookEventType = Schema.Literals(["job.completed", "job.failed"])
export type WebhookEventType = typeof WebhookEventType.Type
export const ALL_WEBHOOK_EVENT_TYPES: ReadonlyArray<WebhookEventType> = ["job.completed", "job.failed"]

/** The project's endpoint; each event carries the whole configuration, so the last one is the state. */
export const WebhookConfigured = Schema.TaggedStruct("WebhookConfigured", {
  v: V1,
  projectId: Schema.String,
  /** Names the signing secret (derived from it), so a new id is a new secret. */
  webhookId: Schema.String,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  at: Schema.Number
})
export type WebhookConfigured = typeof WebhookConfigured.Type

export const WebhookRemoved = Schema.TaggedStruct("WebhookRemoved", {
  v: V1,
  projectId: Schema.String,
  at: Schema.Number
})
export type WebhookRemoved = typeof WebhookRemoved.Type

export const WebhookConfigEvent = Schema.Union([WebhookConfigured, WebhookRemoved])
export type WebhookConfigEvent = typeof WebhookConfigEvent.Type

export const DeliveryOutcome = Schema.Literals(["delivered", "will_retry", "failed"])
export type DeliveryOutcome = typeof DeliveryOutcome.Type

/** One attempt to deliver one event; the log of a project is the sequence of these. */
export const WebhookDeliveryAttempted = Schema.TaggedStruct("WebhookDeliveryAttempted", {
  v: V1,
  /** Stable across the attempts of one event: receivers deduplicate with it. */
  deliveryId: Schema.String,
  projectId: Schema.String,
  webhookId: Schema.String,
  url: Schema.String,
  eventType: WebhookEventType,
  jobId: Schema.String,
  attempt: Schema.Int,
  outcome: DeliveryOutcome,
  /** The receiver's HTTP status, or null when there was no answer. */
  statusCode: Schema.NullOr(Schema.Int),
  /** Why the attempt failed (timeout, refused address, status), null when delivered. */
  error: Schema.NullOr(Schema.String),
  durationMs: Schema.Number,
  at: Schema.Number,
  nextAttemptAt: Schema.NullOr(Schema.Number),
  /**
   * Present on the attempts of a redelivery someone asked for (WebhookRedeliveryRequested): the time of the attempt it
   * was asked after. Absent on the first series.
   */
  redeliveryOf: Schema.optionalKey(Schema.Number)
})
export type WebhookDeliveryAttempted = typeof WebhookDeliveryAttempted.Type

/**
 * Someone asked (dashboard) to send an event again, after its delivery ended (delivered or given up): the dispatcher
 * sends it once more, with the same delivery id, to the project's endpoint as configured now, and retries as usual.
 * On mds.webhook.redeliver.<projectId>.
 */
export const WebhookRedeliveryRequested = Schema.TaggedStruct("WebhookRedeliveryRequested", {
  v: V1,
  projectId: Schema.String,
  deliveryId: Schema.String,
  jobId: Schema.String,
  eventType: WebhookEventType,
  /** The last attempt when it was asked for: one request per ended series (a second click is the same request). */
  afterAttemptAt: Schema.Number,
  at: Schema.Number
})
export type WebhookRedeliveryRequested = typeof WebhookRedeliveryRequested.Type

// Webhook events (extension): a project's endpoint (mds.webhook.config.<projectId>) and its delivery log
// (mds.webhook.delivery.<projectId>).
import { Schema } from "effect"

const V1 = Schema.Literal(1)

/** The events a job's end sends (the only ones before subscriptions). */
export const JobWebhookEventType = Schema.Literals(["job.completed", "job.failed"])

export const WebhookEventType = Schema.Literals(["job.completed", "job.failed", "subscription.entries_queued", "subscription.failing"])
export type WebhookEventType = typeof WebhookEventType.Type
export const ALL_WEBHOOK_EVENT_TYPES: ReadonlyArray<WebhookEventType> = WebhookEventType.literals

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

/** Version 1: one attempt to deliver a job's event (the only kind then), named by its job. */
export const WebhookDeliveryAttemptedV1 = Schema.TaggedStruct("WebhookDeliveryAttempted", {
  v: V1,
  /** Stable across the attempts of one event: receivers deduplicate with it. */
  deliveryId: Schema.String,
  projectId: Schema.String,
  webhookId: Schema.String,
  url: Schema.String,
  eventType: JobWebhookEventType,
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

/**
 * Version 2: one attempt to deliver any event: a job's (`jobId`) or a subscription's (`subscriptionId`; its queued
 * entries' jobs are in the payload).
 */
export type WebhookDeliveryAttemptedV1 = typeof WebhookDeliveryAttemptedV1.Type

export const WebhookDeliveryAttemptedV2 = Schema.TaggedStruct("WebhookDeliveryAttempted", {
  ...WebhookDeliveryAttemptedV1.fields,
  v: Schema.Literal(2),
  eventType: WebhookEventType,
  jobId: Schema.NullOr(Schema.String),
  subscriptionId: Schema.NullOr(Schema.String)
})
export type WebhookDeliveryAttemptedV2 = typeof WebhookDeliveryAttemptedV2.Type

/** One attempt to deliver one event; the log of a project is the sequence of these. Written as version 2. */
export const WebhookDeliveryAttempted = Schema.Union([WebhookDeliveryAttemptedV1, WebhookDeliveryAttemptedV2])
export type WebhookDeliveryAttempted = typeof WebhookDeliveryAttempted.Type

/**
 * Someone asked (the dashboard's Redeliver button, POST /v1/webhooks/deliveries/{deliveryId}/redeliver or `mds webhooks
 * redeliver`) to send an event again, after its delivery ended (delivered or given up): the dispatcher
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

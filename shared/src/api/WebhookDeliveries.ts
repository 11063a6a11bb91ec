// The /v1 shapes of a webhook delivery attempt and of a redelivery asked for (extensions), built from the webhook events.
import { Schema } from "effect"
import { type WebhookDeliveryAttempted, WebhookEventType, type WebhookRedeliveryRequested } from "../domain/webhook/WebhookEvent.ts"

export const WebhookDelivery = Schema.Struct({
  delivery_id: Schema.String.annotate({ description: "Same for every attempt of one event (also the MDS-Delivery-Id header)." }),
  event: WebhookEventType,
  job_id: Schema.NullOr(Schema.String).annotate({ description: "The job a job.* event is about; null for subscription events." }),
  subscription_id: Schema.NullOr(Schema.String).annotate({
    description: "The subscription a subscription.* event is about; null for job events."
  }),
  url: Schema.String,
  attempt: Schema.Int,
  outcome: Schema.Literals(["delivered", "will_retry", "failed"]),
  status_code: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  duration_ms: Schema.Number,
  at: Schema.String.annotate({ format: "date-time" }),
  next_attempt_at: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
}).annotate({ identifier: "WebhookDelivery" })
export type WebhookDelivery = typeof WebhookDelivery.Type

const iso = (epochMs: number) => new Date(epochMs).toISOString()

export const toWebhookDelivery = (event: WebhookDeliveryAttempted): WebhookDelivery => ({
  delivery_id: event.deliveryId,
  event: event.eventType,
  job_id: event.jobId,
  subscription_id: event.v === 1 ? null : event.subscriptionId,
  url: event.url,
  attempt: event.attempt,
  outcome: event.outcome,
  status_code: event.statusCode,
  error: event.error,
  duration_ms: event.durationMs,
  at: iso(event.at),
  next_attempt_at: event.nextAttemptAt === null ? null : iso(event.nextAttemptAt)
})

/** What POST /webhooks/deliveries/{deliveryId}/redeliver asked for: which event is sent again, about which job. */
export const WebhookRedelivery = Schema.Struct({
  delivery_id: Schema.String.annotate({ description: "The delivery sent again (its MDS-Delivery-Id stays the same)." }),
  event: WebhookEventType,
  job_id: Schema.String.annotate({ description: "The job the event is about (only a job's delivery is sent again)." })
}).annotate({ identifier: "WebhookRedelivery" })
export type WebhookRedelivery = typeof WebhookRedelivery.Type

export const toWebhookRedelivery = (requested: WebhookRedeliveryRequested): WebhookRedelivery => ({
  delivery_id: requested.deliveryId,
  event: requested.eventType,
  job_id: requested.jobId
})

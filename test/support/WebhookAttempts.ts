// Webhook delivery attempts as the dispatcher records them, for specs: by default a job's first attempt, answered 503
// and to be retried; a spec gives what it is about (its ids, times, outcome).
import type { WebhookDeliveryAttemptedV1, WebhookDeliveryAttemptedV2 } from "@mds/shared/domain/webhook/WebhookEvent"

type Identity = "deliveryId" | "projectId" | "at" | "nextAttemptAt"

const firstAttempt = {
  _tag: "WebhookDeliveryAttempted",
  webhookId: "whk_1",
  url: "https://hooks.example.org/mds",
  eventType: "job.failed",
  jobId: "job_aaaaaaaaaaaaaaaaaaaaaaaa",
  attempt: 1,
  outcome: "will_retry",
  statusCode: 503,
  error: "HTTP 503",
  durationMs: 40
} as const

/** An attempt as written today (version 2: a job's or a subscription's event). */
export const deliveryAttempt = (
  fields: Pick<WebhookDeliveryAttemptedV2, Identity> & Partial<WebhookDeliveryAttemptedV2>
): WebhookDeliveryAttemptedV2 => ({ ...firstAttempt, v: 2, subscriptionId: null, ...fields })

/** An attempt as written before subscriptions (version 1: a job's event only), still read. */
export const deliveryAttemptV1 = (
  fields: Pick<WebhookDeliveryAttemptedV1, Identity> & Partial<WebhookDeliveryAttemptedV1>
): WebhookDeliveryAttemptedV1 => ({ ...firstAttempt, v: 1, ...fields })

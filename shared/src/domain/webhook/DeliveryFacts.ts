// The webhook delivery log's door: each attempt of a delivery, on the project's delivery subject, once per attempt.
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { webhookDeliverySubject } from "../../eventstore/Subjects.ts"
import { WebhookDeliveryAttempted, type WebhookDeliveryAttemptedV2 } from "./WebhookEvent.ts"

const recordAttempt = factRecorder({
  codec: WebhookDeliveryAttempted,
  // A redelivery's attempts count from 1 again: its series is named by the attempt it was asked after.
  msgId: (attempt) => `${attempt.deliveryId}:${attempt.redeliveryOf === undefined ? "" : `r${attempt.redeliveryOf}:`}${attempt.attempt}`
})

export const recordDeliveryAttempt = (attempt: WebhookDeliveryAttemptedV2) =>
  recordAttempt(webhookDeliverySubject(attempt.projectId), attempt)

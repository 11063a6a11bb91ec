// The webhook delivery log's door: each attempt of a delivery, on the project's delivery subject, once per attempt.
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { webhookDeliverySubject } from "../../eventstore/Subjects.ts"
import { WebhookDeliveryAttempted } from "./WebhookEvent.ts"

const recordAttempt = factRecorder({
  codec: WebhookDeliveryAttempted,
  msgId: (attempt) => `${attempt.deliveryId}:${attempt.attempt}`
})

export const recordDeliveryAttempt = (attempt: WebhookDeliveryAttempted) =>
  recordAttempt(webhookDeliverySubject(attempt.projectId), attempt)

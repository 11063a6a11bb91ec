// The webhook delivery log's doors: each attempt of a delivery recorded on the project's delivery subject, once per
// attempt, and the log read back.
import { replayAggregate } from "../../eventstore/CommandHandler.ts"
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { webhookDeliverySubject } from "../../nats/Subjects.ts"
import { DeliveryLogFold } from "../../domain/webhook/DeliveryLog.ts"
import { WebhookDeliveryAttempted, type WebhookDeliveryAttemptedV2 } from "../../domain/webhook/WebhookEvent.ts"

const recordAttempt = factRecorder({
  codec: WebhookDeliveryAttempted,
  // A redelivery's attempts count from 1 again: its series is named by the attempt it was asked after.
  msgId: (attempt) => `${attempt.deliveryId}:${attempt.redeliveryOf === undefined ? "" : `r${attempt.redeliveryOf}:`}${attempt.attempt}`
})

export const recordDeliveryAttempt = (attempt: WebhookDeliveryAttemptedV2) =>
  recordAttempt(webhookDeliverySubject(attempt.projectId), attempt)

/** The project's delivery log, oldest first: the attempts its subject keeps (see WEBHOOK_LOG_LIMIT). */
export const currentDeliveryLog = (projectId: string) =>
  replayAggregate(DeliveryLogFold, WebhookDeliveryAttempted, webhookDeliverySubject(projectId))

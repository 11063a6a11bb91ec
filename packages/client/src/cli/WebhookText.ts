// `mds webhooks` as text: one row per delivery (its latest attempt, how many it took, the next retry), and a redelivery.
import type { WebhookDelivery, WebhookRedelivery } from "@mds/shared/api/WebhookDeliveries"
import { deliveryRows } from "@mds/shared/domain/webhook/DeliveryRows"
import { textTable } from "./TextTable.ts"

const HEADER = ["delivery", "event", "about", "outcome", "status", "attempts", "last attempt", "next retry", "error"]

/** `log` as the API answers it: one entry per attempt, newest first. */
export const deliveriesText = (log: ReadonlyArray<WebhookDelivery>): string => {
  if (log.length === 0) return "no webhook deliveries\n"
  const rows = deliveryRows([...log].reverse(), (attempt) => attempt.delivery_id).map(({ latest, attempts }) => [
    latest.delivery_id,
    latest.event,
    latest.job_id ?? latest.subscription_id ?? "-",
    latest.outcome.replace("_", " "),
    latest.status_code === null ? "none" : String(latest.status_code),
    String(attempts),
    latest.at,
    latest.next_attempt_at ?? "-",
    // The status says it already when the error is only the status.
    latest.error === null || latest.error === `HTTP ${latest.status_code}` ? "" : latest.error
  ])
  return textTable([HEADER, ...rows], new Set([4, 5]))
}

export const redeliveryText = (asked: WebhookRedelivery): string =>
  `${asked.delivery_id}: ${asked.event} of ${asked.job_id} will be sent again in a moment (mds webhooks shows its attempts)\n`

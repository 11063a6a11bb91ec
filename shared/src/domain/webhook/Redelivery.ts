// Whether a webhook delivery may be sent again, decided from its latest attempt in the project's log. Pure.
import { Result, Schema } from "effect"
import type { WebhookDeliveryAttempted, WebhookRedeliveryRequested } from "./WebhookEvent.ts"

export class WebhookDeliveryNotFound extends Schema.TaggedError<WebhookDeliveryNotFound>()("WebhookDeliveryNotFound", {
  deliveryId: Schema.String
}) {}

/** Its retries are still going: a redelivery now would race them. */
export class WebhookDeliveryPending extends Schema.TaggedError<WebhookDeliveryPending>()("WebhookDeliveryPending", {
  deliveryId: Schema.String,
  nextAttemptAt: Schema.Number
}) {}

export interface RequestRedelivery {
  readonly _tag: "RequestRedelivery"
  readonly projectId: string
  readonly deliveryId: string
  readonly now: number
}

/** The delivery's latest attempt in the log (null: the log does not know it, or no longer keeps it). */
export const latestAttempt = (log: ReadonlyArray<WebhookDeliveryAttempted>, deliveryId: string): WebhookDeliveryAttempted | null =>
  log.reduce<WebhookDeliveryAttempted | null>((latest, attempt) => (attempt.deliveryId === deliveryId ? attempt : latest), null)

/** A delivery that ended (delivered or given up) may be sent again; one still retrying may not. */
export const decideRedelivery = (
  command: RequestRedelivery,
  latest: WebhookDeliveryAttempted | null
): Result.Result<WebhookRedeliveryRequested, WebhookDeliveryNotFound | WebhookDeliveryPending> => {
  // Only a job's delivery can be sent again: its payload is rebuilt from the job as it ended. A subscription's carries
  // the subscription as it was at the event, which nothing keeps, so it is not one of the deliveries offered again.
  if (latest === null || latest.projectId !== command.projectId || latest.jobId === null) {
    return Result.fail(new WebhookDeliveryNotFound({ deliveryId: command.deliveryId }))
  }
  if (latest.outcome === "will_retry") {
    return Result.fail(new WebhookDeliveryPending({ deliveryId: command.deliveryId, nextAttemptAt: latest.nextAttemptAt ?? latest.at }))
  }
  return Result.succeed({
    _tag: "WebhookRedeliveryRequested",
    v: 1,
    projectId: command.projectId,
    deliveryId: command.deliveryId,
    jobId: latest.jobId,
    eventType: latest.eventType,
    afterAttemptAt: latest.at,
    at: command.now
  })
}

/** One request per ended series of attempts: asking twice before the redelivery ran is the same request. */
export const redeliveryMsgId = (requested: WebhookRedeliveryRequested) => `redeliver:${requested.deliveryId}:${requested.afterAttemptAt}`

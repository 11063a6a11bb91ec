// The redelivery requests of a project (mds.webhook.redeliver.<projectId>): whether a webhook delivery may be sent
// again, decided from its latest attempt in the project's log and the requests already recorded. Pure.
import { Result, Schema } from "effect"
import { type Decider, type Decision, emit, none } from "../Decider.ts"
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
  /** The delivery's latest attempt in the project's log, read before deciding (null: the log does not know it). */
  readonly latest: WebhookDeliveryAttempted | null
}

export type RedeliveryRejection = WebhookDeliveryNotFound | WebhookDeliveryPending

/** The requests recorded, by what names each: the delivery and the attempt it was asked after. */
export type RedeliveryState = ReadonlyMap<string, WebhookRedeliveryRequested>

const requestKey = (deliveryId: string, afterAttemptAt: number) => `${deliveryId}:${afterAttemptAt}`

/** The delivery's latest attempt in the log (null: the log does not know it, or no longer keeps it). */
export const latestAttempt = (log: ReadonlyArray<WebhookDeliveryAttempted>, deliveryId: string): WebhookDeliveryAttempted | null =>
  log.reduce<WebhookDeliveryAttempted | null>((latest, attempt) => (attempt.deliveryId === deliveryId ? attempt : latest), null)

/**
 * The request a delivery's latest attempt allows: one that ended (delivered or given up) may be sent again, one still
 * retrying may not.
 */
export const redeliveryOf = (command: RequestRedelivery): Result.Result<WebhookRedeliveryRequested, RedeliveryRejection> => {
  const { latest } = command
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

/** Asked again after the same attempt (a double click, a retried call): already requested, nothing to append. */
export const decideRedelivery = (
  command: RequestRedelivery,
  state: RedeliveryState
): Decision<WebhookRedeliveryRequested, RedeliveryRejection> =>
  Result.flatMap(redeliveryOf(command), (requested) =>
    state.has(requestKey(requested.deliveryId, requested.afterAttemptAt)) ? none : emit(requested)
  )

/** The request recorded for the delivery after the attempt at `afterAttemptAt`, if any. */
export const requestedAfter = (state: RedeliveryState, deliveryId: string, afterAttemptAt: number) =>
  state.get(requestKey(deliveryId, afterAttemptAt))

export const RedeliveryDecider: Decider<RequestRedelivery, WebhookRedeliveryRequested, RedeliveryState, RedeliveryRejection> = {
  initialState: () => new Map(),
  evolve: (state, requested) => new Map(state).set(requestKey(requested.deliveryId, requested.afterAttemptAt), requested),
  decide: decideRedelivery
}

/** One request per ended series of attempts: asking twice before the redelivery ran is the same request. */
export const redeliveryMsgId = (requested: WebhookRedeliveryRequested) => `redeliver:${requested.deliveryId}:${requested.afterAttemptAt}`

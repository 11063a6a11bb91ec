// The job webhooks' pure reaction: whether a job's end is announced to the project's endpoint, and as which event.
import type { React } from "@mds/shared/domain/Reaction"
import { hasEnded, type JobState, jobStatus, retriesOf } from "@mds/shared/domain/job/JobState"
import type { WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"

/** The job's state right before and right after the event that woke the dispatcher (for a redelivery: its latest). */
export interface JobAt {
  readonly before: JobState
  readonly after: JobState
}

export type AnnouncementTrigger =
  /** An event that ends a job was stored. */
  | { readonly _tag: "JobEnded" }
  /**
   * Someone asked for a delivery again (`WebhookRedeliveryRequested`), after the attempt made at `afterAttemptAt`; the
   * state is then the job as it ended under that delivery's id (`endNamed`).
   */
  | { readonly _tag: "RedeliveryAsked"; readonly eventType: WebhookEventType; readonly afterAttemptAt: number }

/**
 * What names one end of a job among its ends: a retried job ends once per try (it may fail, be retried and fail again),
 * and each end is its own event with its own delivery id, so a receiver that drops repeated delivery ids drops only
 * repeated attempts of one end. The first try's seed is the job id alone (as before retries existed).
 */
export const jobEndSeed = (jobId: string, state: JobState): string => {
  const retries = retriesOf(state)
  return retries === 0 ? jobId : `${jobId}:retry:${retries}`
}

/**
 * The end a redelivery names, among the job's ends in order (`states`: the job's state after each of its events): the
 * one announced as `type` whose delivery id (`idOf` its seed) is `deliveryId`, so an earlier try's failure is sent as it
 * was even after a later retry; null when none is (the job is gone, or the id names no end of it).
 */
export const endNamed = (
  jobId: string,
  states: ReadonlyArray<JobState>,
  type: WebhookEventType,
  deliveryId: string,
  idOf: (seed: string) => string
): JobState => {
  let before: JobState = null
  for (const after of states) {
    if (!hasEnded(before) && hasEnded(after) && webhookEventOf(after) === type && idOf(jobEndSeed(jobId, after)) === deliveryId) {
      return after
    }
    before = after
  }
  return null
}

/**
 * Send the job's end as `type`. Safe to repeat: its delivery id is fixed by the project, the job's end
 * (`jobEndSeed`) and the type (`deliveryIdOf`), so a receiver drops a repeat, and every attempt is logged under it.
 */
export interface Announcement {
  readonly _tag: "Announce"
  readonly type: WebhookEventType
  /** For a redelivery someone asked for: the time of the attempt it was asked after. */
  readonly redeliveryOf?: number
}

/**
 * The webhook event a job's state is: completed, or failed (a canceled job ends failed, with error.code canceled, and
 * is announced as such); an expired job, or one not ended, is announced to nobody.
 */
export const webhookEventOf = (job: JobState): WebhookEventType | null => {
  switch (jobStatus(job)) {
    case "completed":
      return "job.completed"
    case "failed":
    case "canceled":
      return "job.failed"
    case "none":
    // Extension: a scheduled job is announced when it ends, like any other (no webhook when it is scheduled or begins).
    case "scheduled":
    case "queued":
    case "processing":
    case "expired":
      return null
  }
}

export const react: React<JobAt, AnnouncementTrigger, Announcement> = ({ before, after }, trigger) => {
  const type = webhookEventOf(after)
  if (type === null) return []
  switch (trigger._tag) {
    case "JobEnded":
      // Only the event that ended the job is announced: one folded into a job already ended changes nothing.
      return hasEnded(before) ? [] : [{ _tag: "Announce", type }]
    case "RedeliveryAsked":
      // The same event again, with the job as it ended under that delivery's id (`endNamed`).
      return type === trigger.eventType ? [{ _tag: "Announce", type, redeliveryOf: trigger.afterAttemptAt }] : []
  }
}

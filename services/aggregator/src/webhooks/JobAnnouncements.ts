// The job webhooks' pure reaction: whether a job's end is announced to the project's endpoint, and as which event.
import type { React } from "@mds/shared/domain/Reaction"
import { hasEnded, type JobState, jobStatus } from "@mds/shared/domain/job/JobState"
import type { WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"

/** The job's state right before and right after the event that woke the dispatcher (for a redelivery: its latest). */
export interface JobAt {
  readonly before: JobState
  readonly after: JobState
}

export type AnnouncementTrigger =
  /** An event that ends a job was stored. */
  | { readonly _tag: "JobEnded" }
  /** Someone asked for a delivery again (`WebhookRedeliveryRequested`), after the attempt made at `afterAttemptAt`. */
  | { readonly _tag: "RedeliveryAsked"; readonly eventType: WebhookEventType; readonly afterAttemptAt: number }

/**
 * Send the job's end as `type`. Safe to repeat: its delivery id is fixed by the project, the job and the type
 * (`deliveryIdOf`), so a receiver drops a repeat, and every attempt is logged under it.
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
      // The same event again, with the job as it ended; a job that since ended otherwise (retried) is not sent.
      return type === trigger.eventType ? [{ _tag: "Announce", type, redeliveryOf: trigger.afterAttemptAt }] : []
  }
}

// What a person can do with a job from the dashboard, by its state: Save, Retry, Cancel, and Stop for a recording. Pure.

export type JobAction = "save" | "retry" | "cancel" | "stop"

export interface ActionableJob {
  /** As the job's view or the /v1 Job says it: queued, processing, completed, failed. */
  readonly status: string
  /** The failure's error.retryable (false without a failure). */
  readonly retryable: boolean
  /**
   * A live recording in progress, not yet asked to stop: its Stop action (end the recording, keep what was recorded)
   * is offered beside Cancel (download.js' jobActions follows the same rule).
   */
  readonly recording?: boolean
}

/** dashboard.js' jobActions follows the same rule for the rows and the job page it updates: keep the two in step. */
export const jobActionsOf = (job: ActionableJob): ReadonlyArray<JobAction> => {
  switch (job.status) {
    case "completed":
      return ["save"]
    case "failed":
      // A canceled job's failure is not retryable: it is queued again from the Download tab instead.
      return job.retryable ? ["retry"] : []
    case "scheduled":
    case "queued":
      return ["cancel"]
    case "processing":
      return job.recording === true ? ["stop", "cancel"] : ["cancel"]
    default:
      return []
  }
}

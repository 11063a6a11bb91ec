// The job aggregate's state and evolve: what the decider needs to know, folded from JobEvents.
import type { JobEvent } from "./JobEvent.ts"

export type JobStatus = "none" | "queued" | "processing" | "completed" | "failed" | "expired" | "canceled"

export interface JobState {
  readonly status: JobStatus
  readonly jobId: string | null
  readonly projectId: string | null
  readonly attempt: number
  readonly progress: number
  readonly expiresAt: number
}

export const initialJobState = (): JobState => ({
  status: "none",
  jobId: null,
  projectId: null,
  attempt: 0,
  progress: 0,
  expiresAt: 0
})

export const isTerminal = (status: JobStatus): boolean =>
  status === "completed" || status === "failed" || status === "expired" || status === "canceled"

/** Terminal states absorb every later event, so a late or duplicated event never reopens a job. */
export const evolveJob = (state: JobState, event: JobEvent): JobState => {
  if (isTerminal(state.status)) return state
  switch (event._tag) {
    case "JobQueued":
      return {
        ...state,
        status: "queued",
        jobId: event.jobId,
        projectId: event.projectId,
        expiresAt: event.expiresAt
      }
    case "JobStarted":
      return { ...state, status: "processing", attempt: Math.max(state.attempt, event.attempt) }
    case "JobProgressed":
      return { ...state, progress: Math.max(state.progress, event.percent) }
    case "JobCompleted":
      return { ...state, status: "completed", progress: 100 }
    case "JobFailed":
      return { ...state, status: "failed" }
    case "JobExpired":
      return { ...state, status: "expired" }
    case "JobCanceled":
      return { ...state, status: "canceled" }
  }
}

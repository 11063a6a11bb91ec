// Jobs by state, from each job's one state (the job domain's evolve): what the mds_jobs gauge reports. Pure.
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJob, type JobState } from "@mds/shared/domain/job/JobState"

export type TalliedState = "scheduled" | "queued" | "processing" | "completed" | "failed"
export const TALLIED_STATES: ReadonlyArray<TalliedState> = ["scheduled", "queued", "processing", "completed", "failed"]

/** Job subject -> the job's state; jobs past their lifetime (or expired) are dropped when counted. */
export type JobStateTally = Map<string, JobState>

export const applyToTally = (tally: JobStateTally, subject: string, event: JobEvent): void => {
  const state = evolveJob(tally.get(subject) ?? null, event)
  if (state !== null) tally.set(subject, state)
}

/** A canceled job is answered as failed, and counted so. */
const talliedAs = (state: NonNullable<JobState>): TalliedState | null => (state.status === "expired" ? null : state.status)

export const countTally = (tally: JobStateTally, now: number): Record<TalliedState, number> => {
  const counts: Record<TalliedState, number> = { scheduled: 0, queued: 0, processing: 0, completed: 0, failed: 0 }
  for (const [subject, state] of tally) {
    const tallied = state === null || state.expiresAt <= now ? null : talliedAs(state)
    if (tallied === null) tally.delete(subject)
    else counts[tallied]++
  }
  return counts
}

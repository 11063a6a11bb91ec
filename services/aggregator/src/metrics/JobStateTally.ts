// Jobs by state, folded from job events: what the mds_jobs gauge reports. Pure.
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"

export type TalliedState = "queued" | "processing" | "completed" | "failed"
export const TALLIED_STATES: ReadonlyArray<TalliedState> = ["queued", "processing", "completed", "failed"]

interface Entry {
  readonly state: TalliedState
  readonly expiresAt: number
}

/** Job subject -> its state; entries past their lifetime are dropped when counted. */
export type JobStateTally = Map<string, Entry>

export const applyToTally = (tally: JobStateTally, subject: string, event: JobEvent): void => {
  const current = tally.get(subject)
  switch (event._tag) {
    case "JobQueued":
      if (current === undefined) tally.set(subject, { state: "queued", expiresAt: event.expiresAt })
      return
    case "JobStarted":
      if (current?.state === "queued" || current?.state === "processing") tally.set(subject, { ...current, state: "processing" })
      return
    case "JobProgressed":
      return
    case "JobCompleted":
      if (current !== undefined) tally.set(subject, { ...current, state: "completed" })
      return
    case "JobFailed":
    case "JobCanceled":
      if (current !== undefined) tally.set(subject, { ...current, state: "failed" })
      return
    case "JobExpired":
      tally.delete(subject)
  }
}

export const countTally = (tally: JobStateTally, now: number): Record<TalliedState, number> => {
  const counts: Record<TalliedState, number> = { queued: 0, processing: 0, completed: 0, failed: 0 }
  for (const [subject, entry] of tally) {
    if (entry.expiresAt <= now) tally.delete(subject)
    else counts[entry.state]++
  }
  return counts
}

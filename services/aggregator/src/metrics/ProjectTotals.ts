// Per-project totals for /metrics: jobs ended by outcome and bytes of completed jobs, counted once per job as it ends. Pure.
import { hasEnded, type JobState, jobStatus } from "@mds/shared/domain/job/JobState"

export type EndOutcome = "completed" | "failed" | "canceled" | "expired"
export const END_OUTCOMES: ReadonlyArray<EndOutcome> = ["completed", "failed", "canceled", "expired"]

/**
 * Labelled by project and outcome only: projects are few and made by an operator, outcomes four. Per platform or
 * error code the series would multiply (dozens of platforms, fifteen codes, every project): GET /v1/usage has those.
 */
export interface ProjectTotals {
  readonly ended: Map<string, Record<EndOutcome, number>>
  readonly bytes: Map<string, number>
}

export const emptyProjectTotals = (): ProjectTotals => ({ ended: new Map(), bytes: new Map() })

/** Counts the job once, when an event takes it from live to ended (`before` and `after` are its states around it). */
export const countJobEnd = (totals: ProjectTotals, before: JobState, after: JobState): void => {
  if (after === null || hasEnded(before) || !hasEnded(after)) return
  const outcome = jobStatus(after) as EndOutcome
  const counts = totals.ended.get(after.projectId) ?? { completed: 0, failed: 0, canceled: 0, expired: 0 }
  counts[outcome]++
  totals.ended.set(after.projectId, counts)
  if (outcome === "completed") {
    totals.bytes.set(after.projectId, (totals.bytes.get(after.projectId) ?? 0) + (after.artifact?.sizeBytes ?? 0))
  }
}

// The Jobs tab's filters (status, platform, error code) from the query string, and whether a job passes them. Pure.
import { type JobStatus, jobStatus } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"

export const FILTER_STATUSES: ReadonlyArray<Exclude<JobStatus, "none">> = [
  "scheduled",
  "queued",
  "processing",
  "completed",
  "failed",
  "expired",
  "canceled"
]

export interface JobFilter {
  readonly status: string | null
  readonly platform: string | null
  readonly error: string | null
}

const one = (value: unknown): string | null => (typeof value === "string" && value !== "" && value.length <= 100 ? value : null)

export const jobFilterOf = (query: Readonly<Record<string, unknown>> | undefined): JobFilter => ({
  status: one(query?.["status"]),
  platform: one(query?.["platform"]),
  error: one(query?.["error"])
})

export const matchesJobFilter = (filter: JobFilter, job: JobView): boolean =>
  (filter.status === null || jobStatus(job) === filter.status) &&
  (filter.platform === null || job.platform === filter.platform) &&
  (filter.error === null || job.error?.code === filter.error)

/** The same filter as a query string (empty when none), for the live refresh and links. */
export const jobFilterQuery = (filter: JobFilter): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(filter)) if (value !== null) params.set(name, value)
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

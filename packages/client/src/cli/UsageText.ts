// `mds usage` as text: the project's jobs and downloaded bytes per day, the range's top errors and its quotas' use.
import type { Usage } from "@mds/shared/api/Usage"
import { formatBytes } from "./ProgressDisplay.ts"
import { textTable } from "./TextTable.ts"

const DAY_HEADER = ["day", "jobs", "completed", "failed", "canceled", "expired", "running", "downloaded"]
const QUOTA_NAMES = { jobs_per_day: "jobs per day", bytes_per_month: "bytes per month" } as const

const dayRow = (label: string, jobs: Usage["totals"]["jobs"], bytes: number) => [
  label,
  ...[jobs.total, jobs.completed, jobs.failed, jobs.canceled, jobs.expired, jobs.queued + jobs.processing].map(String),
  formatBytes(bytes)
]

const quotaRow = (quota: Usage["quotas"][number]) => {
  const amount = quota.name === "bytes_per_month" ? formatBytes : String
  return [
    QUOTA_NAMES[quota.name],
    amount(quota.used),
    quota.limit === null ? "unlimited" : amount(quota.limit),
    quota.remaining === null ? "-" : amount(quota.remaining),
    quota.resets_at
  ]
}

export const usageText = (usage: Usage): string => {
  const numbers = new Set(DAY_HEADER.map((_, i) => i).filter((i) => i > 0))
  const days = textTable(
    [
      DAY_HEADER,
      ...usage.days.map((day) => dayRow(day.date, day.jobs, day.bytes_downloaded)),
      dayRow("total", usage.totals.jobs, usage.totals.bytes_downloaded)
    ],
    numbers
  )
  const errors =
    usage.top_errors.length === 0
      ? ""
      : `\n${textTable(
          [["top error", "jobs", "for example"], ...usage.top_errors.map((e) => [e.code, String(e.count), e.example_job_ids.join(", ")])],
          new Set([1])
        )}`
  const quotas = textTable([["quota", "used", "limit", "left", "resets"], ...usage.quotas.map(quotaRow)], new Set([1, 2, 3]))
  return `${usage.from} to ${usage.to} (UTC; jobs by the day they were queued)\n${days}${errors}\n${quotas}`
}

// A project's quota settings as the operator chose them, and the limits they mean under the server's defaults.
import type { QuotaLimits } from "../admission/Quota.ts"
import type { ProjectQuotaSet, QuotaSetting } from "./AccountEvent.ts"

export interface ProjectQuotas {
  readonly jobsPerDay: QuotaSetting
  readonly bytesPerMonth: QuotaSetting
}

/** A project the operator never limited follows the server's defaults. */
export const DEFAULT_QUOTAS: ProjectQuotas = { jobsPerDay: "default", bytesPerMonth: "default" }

export const withQuotaSet = (quotas: ProjectQuotas, event: ProjectQuotaSet): ProjectQuotas => ({
  jobsPerDay: event.jobsPerDay ?? quotas.jobsPerDay,
  bytesPerMonth: event.bytesPerMonth ?? quotas.bytesPerMonth
})

const limitOf = (setting: QuotaSetting, fallback: number | null): number | null =>
  setting === "default" ? fallback : setting === "unlimited" ? null : setting

/** The limits that apply: the project's own, else the defaults (null: unlimited). */
export const quotaLimits = (quotas: ProjectQuotas, defaults: QuotaLimits): QuotaLimits => ({
  jobsPerDay: limitOf(quotas.jobsPerDay, defaults.jobsPerDay),
  bytesPerMonth: limitOf(quotas.bytesPerMonth, defaults.bytesPerMonth)
})

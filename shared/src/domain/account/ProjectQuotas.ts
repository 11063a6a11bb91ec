// A project's quota settings as the operator chose them, and the limits they mean under the server's defaults.
import type { QuotaLimits } from "../admission/Quota.ts"
import type { ProjectQuotaSet, QuotaSetting } from "./AccountEvent.ts"

export interface ProjectQuotas {
  readonly jobsPerDay: QuotaSetting
  readonly bytesPerMonth: QuotaSetting
  /** Extension: the most live subscriptions (SUBSCRIPTIONS_PER_PROJECT by default). */
  readonly subscriptions: QuotaSetting
}

/** A project the operator never limited follows the server's defaults. */
export const DEFAULT_QUOTAS: ProjectQuotas = { jobsPerDay: "default", bytesPerMonth: "default", subscriptions: "default" }

export const withQuotaSet = (quotas: ProjectQuotas, event: ProjectQuotaSet): ProjectQuotas => ({
  jobsPerDay: event.jobsPerDay ?? quotas.jobsPerDay,
  bytesPerMonth: event.bytesPerMonth ?? quotas.bytesPerMonth,
  subscriptions: event.subscriptions ?? quotas.subscriptions
})

const limitOf = (setting: QuotaSetting, fallback: number | null): number | null =>
  setting === "default" ? fallback : setting === "unlimited" ? null : setting

/** The most live subscriptions the project may have: its own setting, else the default (null: unlimited). */
export const subscriptionLimit = (quotas: ProjectQuotas, fallback: number | null): number | null => limitOf(quotas.subscriptions, fallback)

/** The limits that apply: the project's own, else the defaults (null: unlimited). */
export const quotaLimits = (quotas: ProjectQuotas, defaults: QuotaLimits): QuotaLimits => ({
  jobsPerDay: limitOf(quotas.jobsPerDay, defaults.jobsPerDay),
  bytesPerMonth: limitOf(quotas.bytesPerMonth, defaults.bytesPerMonth)
})

// A project's quotas as bars (used of limit, when it resets): on the Usage tab and the project's settings.
import type { QuotaStanding } from "@mds/shared/domain/admission/Quota"
import { formatByteSize } from "@mds/shared/config/ByteSize"
import { formatTime } from "../html/Format.ts"
import { html } from "../html/Html.ts"

const LABELS = { jobs_per_day: "Jobs today (UTC)", bytes_per_month: "Downloaded this month (UTC)" } as const

const amount = (standing: QuotaStanding, value: number) => (standing.quota === "bytes_per_month" ? formatByteSize(value) : String(value))

export const quotaBars = (standings: ReadonlyArray<QuotaStanding>) =>
  html`<ul class="quotas">${standings.map((standing) => {
    const label = LABELS[standing.quota]
    const limit = standing.limit
    const over = limit !== null && standing.used >= limit
    return html`<li data-quota="${standing.quota}">
  <span class="quota-label">${label}</span>
  ${
    limit === null
      ? html`<span class="quota-figures">${amount(standing, standing.used)} · no limit</span>`
      : html`<meter min="0" max="${Math.max(limit, 1)}" value="${Math.min(standing.used, limit)}" high="${Math.max(limit, 1) * 0.8}" optimum="0" aria-label="${label}: ${amount(standing, standing.used)} of ${amount(standing, limit)}"></meter>
  <span class="quota-figures${over ? " over" : ""}">${amount(standing, standing.used)} of ${amount(standing, limit)}${over ? " — used up" : ""}</span>`
  }
  <span class="muted">resets ${formatTime(standing.resetAt)}</span>
</li>`
  })}</ul>`

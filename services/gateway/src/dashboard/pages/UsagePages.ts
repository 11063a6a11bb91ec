// A project's usage tab: quota bars, jobs per day stacked by outcome and bytes per day as SVG, the top error codes.
import { formatByteSize } from "@mds/shared/config/ByteSize"
import type { QuotaStanding } from "@mds/shared/domain/admission/Quota"
import type { UsageReport } from "@mds/shared/domain/usage/UsageReport"
import { byteAxisMax, type ChartSeries, stackedBarChart } from "../html/Charts.ts"
import { html } from "../html/Html.ts"
import { alert, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import { quotaBars } from "./QuotaBars.ts"

const OUTCOMES: ReadonlyArray<ChartSeries> = (["completed", "failed", "canceled", "expired", "processing", "queued"] as const).map(
  (status) => ({ key: status, label: status, className: `series-${status}` })
)

export const usagePage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly report: UsageReport
  readonly quotas: ReadonlyArray<QuotaStanding>
  readonly error: string | null
}) => {
  const { report, project } = options
  const base = `/dashboard/projects/${project.projectId}`
  const jobsChart = stackedBarChart({
    title: `Jobs per day by outcome, ${report.from} to ${report.to}`,
    series: OUTCOMES,
    columns: report.days.map((day) => ({ label: day.day, values: day.byStatus })),
    format: (n) => String(Math.round(n))
  })
  const bytesChart = stackedBarChart({
    title: `Downloaded bytes per day, ${report.from} to ${report.to}`,
    series: [{ key: "bytes", label: "downloaded", className: "series-bytes" }],
    columns: report.days.map((day) => ({ label: day.day, values: { bytes: day.bytes } })),
    format: formatByteSize,
    niceMax: byteAxisMax
  })
  return page({
    title: `Usage · ${project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(project, "usage")}
${alert("error", options.error)}
<form method="get" action="${base}/usage" class="inline" aria-label="Days shown">
  <label for="usage-from">From</label><input id="usage-from" name="from" type="date" value="${report.from}">
  <label for="usage-to">To</label><input id="usage-to" name="to" type="date" value="${report.to}">
  <button type="submit">Show</button>
</form>
<section aria-labelledby="quota-title">
<h2 id="quota-title">Quotas</h2>
${quotaBars(options.quotas)}
</section>
<section aria-labelledby="charts-title">
<h2 id="charts-title">Jobs and downloads</h2>
<p class="muted">Jobs count on the UTC day they were queued. ${report.totals.jobs} jobs and ${formatByteSize(report.totals.bytes)} in these days.</p>
${jobsChart}
${bytesChart}
</section>
<section aria-labelledby="errors-title">
<h2 id="errors-title">Top error codes</h2>
${
  report.topErrors.length === 0
    ? html`<p class="muted">No failed jobs in these days.</p>`
    : html`<div class="table-wrap"><table class="errors">
<thead><tr><th scope="col">Code</th><th scope="col">Jobs</th><th scope="col">Examples</th></tr></thead>
<tbody>${report.topErrors.map(
        (error) => html`<tr data-error-code="${error.code}">
  <td data-label="Code"><a href="${base}/jobs?error=${encodeURIComponent(error.code)}"><code>${error.code}</code></a></td>
  <td data-label="Jobs">${error.count}</td>
  <td data-label="Examples">${error.exampleJobIds.map(
    (jobId) => html`<a class="example-job" href="${base}/jobs?error=${encodeURIComponent(error.code)}#${jobId}"><code>${jobId}</code></a> `
  )}</td>
</tr>`
      )}</tbody>
</table></div>`
}
</section>
<details>
<summary>The numbers per day</summary>
<div class="table-wrap"><table class="usage-days">
<thead><tr><th scope="col">Day</th><th scope="col">Jobs</th>${OUTCOMES.map((s) => html`<th scope="col">${s.label}</th>`)}<th scope="col">Downloaded</th></tr></thead>
<tbody>${report.days.map(
      (day) =>
        html`<tr><td data-label="Day">${day.day}</td><td data-label="Jobs">${day.jobs}</td>${OUTCOMES.map((s) => html`<td data-label="${s.label}">${day.byStatus[s.key as keyof typeof day.byStatus]}</td>`)}<td data-label="Downloaded">${formatByteSize(day.bytes)}</td></tr>`
    )}</tbody>
</table></div>
</details>`
  })
}

// A project's jobs (with live progress) and its settings (rename, members).
import type { ProjectView } from "@mds/shared/domain/account/AccountViews"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { formatTime } from "../html/Format.ts"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import type { QuotaStanding } from "@mds/shared/domain/admission/Quota"
import { FILTER_STATUSES, type JobFilter, jobFilterQuery } from "./JobFilter.ts"
import { quotaBars } from "./QuotaBars.ts"

/** What the jobs page shows of a job, also sent on its live stream to update the page without a reload. */
export interface JobRow {
  readonly id: string
  readonly status: string
  readonly progress: number
  readonly format: string
  readonly platform: string
  readonly createdAt: string
  /** Epoch ms: where a row that joins the list goes (newest first). */
  readonly created: number
  readonly error: string | null
}

export const toJobRow = (job: JobView): JobRow => ({
  id: job.id,
  status: job.status,
  progress: Math.round(job.progress),
  format: job.requestedFormat,
  platform: job.platform,
  createdAt: formatTime(job.createdAt),
  created: job.createdAt,
  error: job.error === null ? null : `${job.error.code}: ${job.error.message}`
})

/** The same markup dashboard.js builds from the JSON rows: keep the two in step. */
const jobRow = (row: JobRow) =>
  html`<tr id="${row.id}" data-job-id="${row.id}" data-status="${row.status}" data-created="${row.created}">
  <td data-label="Job"><code>${row.id}</code></td>
  <td data-label="Status"><span class="badge ${row.status}" data-field="status">${row.status}</span></td>
  <td data-label="Progress"><progress max="100" value="${row.progress}" aria-label="Progress of ${row.id}"></progress> <span data-field="progress">${row.progress}%</span></td>
  <td data-label="Format">${row.format} <span class="muted">${row.platform}</span></td>
  <td data-label="Created">${row.createdAt}</td>
  <td data-label="Error" data-field="error">${row.error ?? ""}</td>
</tr>`

const select = (name: string, label: string, chosen: string | null, values: ReadonlyArray<string>) =>
  html`<label for="filter-${name}">${label}</label>
<select id="filter-${name}" name="${name}"><option value="">any</option>${[
    ...new Set([...values, ...(chosen === null ? [] : [chosen])])
  ].map((value) => html`<option value="${value}"${value === chosen ? html` selected` : ""}>${value}</option>`)}</select>`

export const jobsPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly rows: ReadonlyArray<JobRow>
  readonly filter: JobFilter
  readonly choices: { readonly platforms: ReadonlyArray<string>; readonly errors: ReadonlyArray<string> }
  /** The most rows the list holds (also when rows join it live). */
  readonly limit: number
}) =>
  page({
    title: `Jobs · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "jobs")}
<section aria-labelledby="jobs-title">
<h2 id="jobs-title">Recent jobs</h2>
<p class="muted">Jobs queued with this project's keys, newest first. The list updates by itself as jobs change.</p>
<form method="get" action="/dashboard/projects/${options.project.projectId}/jobs" class="inline filters" aria-label="Filter jobs">
  ${select("status", "Status", options.filter.status, FILTER_STATUSES)}
  ${select("platform", "Platform", options.filter.platform, options.choices.platforms)}
  ${select("error", "Error code", options.filter.error, options.choices.errors)}
  <button type="submit">Filter</button>
</form>
<div class="table-wrap"><table class="jobs">
<thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Format</th><th scope="col">Created</th><th scope="col">Error</th></tr></thead>
<tbody data-live-jobs="/dashboard/projects/${options.project.projectId}/jobs/events${jobFilterQuery(options.filter)}" data-live-limit="${options.limit}">${options.rows.map(jobRow)}</tbody>
</table></div>
<p class="muted" data-empty-jobs${options.rows.length === 0 ? "" : html` hidden`}>No jobs${jobFilterQuery(options.filter) === "" ? " yet" : " match the filter"}.</p>
</section>`
  })

export const settingsPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectView | (ProjectRef & { readonly members: ProjectView["members"] })
  readonly quotas: ReadonlyArray<QuotaStanding>
  readonly error: string | null
  readonly notice: string | null
}) => {
  const { project } = options
  const base = `/dashboard/projects/${project.projectId}`
  return page({
    title: `Settings · ${project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(project, "settings")}
${alert("error", options.error)}
${alert("notice", options.notice)}
<section aria-labelledby="rename-title">
<h2 id="rename-title">Name</h2>
<form method="post" action="${base}/rename" class="inline">
  ${csrfField(options.viewer.csrfToken)}
  <label for="rename">Project name</label>
  <input id="rename" name="name" required maxlength="100" value="${project.name}">
  <button type="submit">Rename</button>
</form>
</section>
<section aria-labelledby="quotas-title">
<h2 id="quotas-title">Quotas</h2>
<p class="muted">Set by the operator (<code>cli -- project quota</code>); the Usage tab shows the days behind them.</p>
${quotaBars(options.quotas)}
</section>
<section aria-labelledby="members-title">
<h2 id="members-title">Members</h2>
<ul>${project.members.map((member) => html`<li>${member.email}</li>`)}</ul>
<form method="post" action="${base}/members" class="inline">
  ${csrfField(options.viewer.csrfToken)}
  <label for="member-email">Add a dashboard user by email</label>
  <input id="member-email" name="email" type="email" required maxlength="254">
  <button type="submit">Add member</button>
</form>
</section>`
  })
}

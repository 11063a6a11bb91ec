// The Jobs tab: the project's recent jobs by their media (title, picture), with live progress, filters and actions.
import { html } from "../html/Html.ts"
import { page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import { FILTER_STATUSES, type JobFilter, jobFilterQuery } from "../jobs/JobFilter.ts"
import type { JobRow } from "../jobs/JobRows.ts"
import { actionControls } from "./JobActionButtons.ts"
import { thumbnail } from "./MediaPanel.ts"

/** The same markup dashboard.js builds from the JSON rows of the live stream: keep the two in step. */
const jobRow = (base: string, csrfToken: string, row: JobRow) =>
  html`<tr id="${row.id}" data-job-id="${row.id}" data-status="${row.status}" data-created="${row.created}">
  <td data-label="Media"><div class="media-cell">${thumbnail(row.thumbnail, "thumb-small")}<span><a href="${base}/download/jobs/${row.id}" data-field="title">${row.title ?? row.url}</a><br><code>${row.id}</code></span></div></td>
  <td data-label="Status"><span class="badge ${row.status}" data-field="status">${row.status}</span>${row.startsAt === null ? "" : html` <span class="muted" data-field="starts-at">starts ${row.startsAt}</span>`}${
    row.delivery === null ? "" : html`<br><span class="muted" data-field="delivery">${row.delivery}</span>`
  }</td>
  <td data-label="Progress"><progress max="100" value="${row.progress}" aria-label="Progress of ${row.id}"></progress> <span data-field="progress">${row.progressText}</span></td>
  <td data-label="Format">${row.format} <span class="muted">${row.platform}</span></td>
  <td data-label="Created">${row.createdAt}</td>
  <td data-label="Error" data-field="error">${row.error ?? ""}</td>
  <td data-label="Actions"><div class="actions">${actionControls(
    { base, csrfToken, jobId: row.id, name: row.title ?? row.id, filename: row.filename, from: "jobs" },
    row.actions
  )}</div></td>
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
}) => {
  const base = `/dashboard/projects/${options.project.projectId}`
  return page({
    title: `Jobs · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "jobs")}
<section aria-labelledby="jobs-title">
<h2 id="jobs-title">Recent jobs</h2>
<p class="muted">Jobs queued from the Download tab and with this project's keys, newest first. The list updates by itself as jobs change.</p>
<form method="get" action="${base}/jobs" class="inline filters" aria-label="Filter jobs">
  ${select("status", "Status", options.filter.status, FILTER_STATUSES)}
  ${select("platform", "Platform", options.filter.platform, options.choices.platforms)}
  ${select("error", "Error code", options.filter.error, options.choices.errors)}
  <button type="submit">Filter</button>
</form>
<div class="table-wrap"><table class="jobs">
<thead><tr><th scope="col">Media</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Format</th><th scope="col">Created</th><th scope="col">Error</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody data-live-jobs="${base}/jobs/events${jobFilterQuery(options.filter)}" data-live-limit="${options.limit}" data-base="${base}">${options.rows.map(
      (row) => jobRow(base, options.viewer.csrfToken, row)
    )}</tbody>
</table></div>
<p class="muted" data-empty-jobs${options.rows.length === 0 ? "" : html` hidden`}>No jobs${jobFilterQuery(options.filter) === "" ? " yet" : " match the filter"}.</p>
</section>`
  })
}

// A batch queued from the Download tab: its entries and how far each got, as GET /v1/batches/{batchId} shows them.
import type { Batch } from "@mds/shared/api/Batches"
import { html } from "../html/Html.ts"
import { page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"

export const batchPage = (options: { readonly viewer: Viewer; readonly project: ProjectRef; readonly batch: Batch }) => {
  const { batch } = options
  const base = `/dashboard/projects/${options.project.projectId}`
  const { progress } = batch
  return page({
    title: `Batch · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "download")}
<section aria-labelledby="batch-title" data-batch-id="${batch.id}" data-status="${batch.status}">
<h2 id="batch-title" tabindex="-1" autofocus>A batch of ${progress.total} entr${progress.total === 1 ? "y" : "ies"} (${batch.format})</h2>
<p><span class="badge" data-field="status">${batch.status}</span> <span data-field="counts">${progress.completed} completed · ${progress.queued} downloading or queued · ${progress.pending} waiting · ${progress.failed} failed</span></p>
<p class="muted">Entries start as the project's download slots free; each becomes a job of the Jobs tab. Batch <code>${batch.id}</code>.</p>
<div class="table-wrap"><table class="entries">
<thead><tr><th scope="col">Entry</th><th scope="col">Status</th></tr></thead>
<tbody>${batch.entries.map(
      (entry) => html`<tr data-entry-id="${entry.id}" data-status="${entry.status}">
<td data-label="Entry">${entry.job_id === undefined ? entry.title : html`<a href="${base}/download/jobs/${entry.job_id}">${entry.title}</a>`}</td>
<td data-label="Status"><span class="badge ${entry.status}">${entry.status}</span>${entry.error === undefined ? "" : html` <span class="muted">${entry.error.message}</span>`}</td>
</tr>`
    )}</tbody>
</table></div>
<p><a href="${base}/download/batches/${batch.id}">Refresh</a> · <a href="${base}/jobs">All jobs</a> · <a href="${base}/download">Download another link</a></p>
</section>`
  })
}

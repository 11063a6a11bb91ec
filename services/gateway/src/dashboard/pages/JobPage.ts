// One job on the Download tab: its media, live progress (the API's job event stream), Save, Retry and Cancel.
import type { ApiJob } from "@mds/shared/api/JobResponse"
import { html } from "../html/Html.ts"
import { page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import type { Refusal } from "../ApiRefusal.ts"
import { jobActionsOf } from "../jobs/JobActions.ts"
import type { JobMedia } from "../jobs/JobRows.ts"
import { type ActionTarget, actionControl } from "./JobActionButtons.ts"
import { thumbnail } from "./MediaPanel.ts"
import { refusalAlert } from "./RefusalAlert.ts"

const errorOf = (job: ApiJob) => (job.error === undefined ? "" : `${job.error.code}: ${job.error.message}`)

export const jobPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly job: ApiJob
  readonly media: JobMedia | null
  /** The URL the job downloads: its name until a resolve gave it a title. */
  readonly url: string
  readonly refusal: Refusal | null
}) => {
  const { job } = options
  const base = `/dashboard/projects/${options.project.projectId}`
  const title = options.media?.title ?? options.url
  const recording = job.recording !== undefined && job.recording.ended === null && !job.recording.stop_requested
  const actions = jobActionsOf({ status: job.status, retryable: job.error?.retryable === true, recording })
  const target: ActionTarget = {
    base,
    csrfToken: options.viewer.csrfToken,
    jobId: job.id,
    name: title,
    filename: job.result?.filename ?? null,
    from: "job"
  }
  const ended = job.status === "completed" || job.status === "failed"
  return page({
    title: `${title} · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "download")}
${refusalAlert(options.refusal)}
<section class="job" aria-labelledby="job-title" data-live-job="${base}/jobs/${job.id}/events" data-job-id="${job.id}" data-status="${job.status}">
<div class="media-head">${thumbnail(options.media?.thumbnail ?? "")}<div>
<h2 id="job-title" tabindex="-1"${options.refusal === null ? html` autofocus` : ""}>${title}</h2>
<p class="muted">Job <code>${job.id}</code> · ${job.requested_format} · ${job.platform}</p>
</div></div>
<p class="job-progress"><span class="badge ${job.status}" data-field="status">${job.status}</span>
<progress max="100" value="${job.progress}" aria-label="Download progress"></progress> <span data-field="progress">${job.progress}%</span></p>
<p class="sr-only" role="status" data-field="announce"></p>
<p class="alert error" data-field="error"${job.error === undefined ? html` hidden` : ""}>${errorOf(job)}</p>
<div class="actions" data-actions>
${(["save", "retry", "stop", "cancel"] as const).map((action) => actionControl(target, action, !actions.includes(action)))}
</div>
${ended ? "" : html`<noscript><p><a href="${base}/download/jobs/${job.id}">Reload</a> to see how far it got.</p></noscript>`}
<p><a href="${base}/download">Download another link</a> · <a href="${base}/jobs#${job.id}">All jobs</a></p>
</section>`
  })
}

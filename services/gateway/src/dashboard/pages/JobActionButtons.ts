// A job's Save, Retry and Cancel controls (and Stop, for a recording): a link and small forms, each with the CSRF token.
import { type Html, html } from "../html/Html.ts"
import { csrfField } from "../html/Layout.ts"
import type { JobAction } from "../jobs/JobActions.ts"

export interface ActionTarget {
  /** /dashboard/projects/<projectId> */
  readonly base: string
  readonly csrfToken: string
  readonly jobId: string
  /** What screen readers hear after the button's word ("Retry <name>"): the media's title or the job id. */
  readonly name: string
  readonly filename: string | null
  /** Where Retry and Cancel come back to: the Jobs tab's row, or the job's own page. */
  readonly from: "jobs" | "job"
}

const LABELS: Record<Exclude<JobAction, "save">, string> = { retry: "Retry", cancel: "Cancel", stop: "Stop recording" }

/**
 * Save is a link to the dashboard's file route, which signs the job's download link when it is followed (so a page
 * left open never holds an expired link). The others post to the route of their name, which calls the /v1 handler.
 */
export const actionControl = (target: ActionTarget, action: JobAction, hidden = false): Html => {
  const jobBase = `${target.base}/jobs/${target.jobId}`
  const hide = hidden ? html` hidden` : ""
  if (action === "save") {
    // The job's page names the file on the button (the Jobs tab has the title beside it).
    const named = target.from === "job" ? html`<span data-field="filename">${target.filename ?? ""}</span>` : ""
    return html`<a class="button save" href="${jobBase}/file" download="${target.filename ?? ""}" data-action="save"${hide}>Save<span class="sr-only"> ${target.name}</span>${named}</a>`
  }
  return html`<form method="post" action="${jobBase}/${action}" class="inline" data-action="${action}"${hide}>${csrfField(target.csrfToken)}<input type="hidden" name="from" value="${target.from}"><button type="submit"${
    action === "cancel" ? html` class="danger"` : ""
  }>${LABELS[action]}<span class="sr-only"> ${target.name}</span></button></form>`
}

/** The controls a job has now. */
export const actionControls = (target: ActionTarget, actions: ReadonlyArray<JobAction>): Html =>
  html`${actions.map((action) => actionControl(target, action))}`

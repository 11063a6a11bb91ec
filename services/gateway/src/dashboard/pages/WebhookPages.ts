// A project's Webhooks tab: recent deliveries (latest attempt of each: status code, attempts, next retry) and redelivery.
import type { DeliveryRow as DeliveryRowOf } from "@mds/shared/domain/webhook/DeliveryRows"
import type { WebhookDeliveryAttempted } from "@mds/shared/domain/webhook/WebhookEvent"
import { formatTime } from "../html/Format.ts"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"

/** One event's delivery: its latest attempt and how many attempts it took. */
export type DeliveryRow = DeliveryRowOf<WebhookDeliveryAttempted>

const OUTCOME_BADGE = { delivered: "completed", will_retry: "processing", failed: "failed" } as const

export const webhooksPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly rows: ReadonlyArray<DeliveryRow>
  readonly endpoint: string | null
  readonly error: string | null
  readonly notice: string | null
}) => {
  const base = `/dashboard/projects/${options.project.projectId}`
  const row = ({ latest, attempts }: DeliveryRow) =>
    html`<tr data-delivery-id="${latest.deliveryId}">
  <td data-label="Event">${latest.eventType} <a href="${base}/jobs#${latest.jobId}"><code>${latest.jobId}</code></a></td>
  <td data-label="Outcome"><span class="badge ${OUTCOME_BADGE[latest.outcome]}">${latest.outcome.replace("_", " ")}</span>${latest.redeliveryOf === undefined ? "" : html` <span class="muted">redelivery</span>`}</td>
  <td data-label="Status code">${latest.statusCode === null ? html`<span class="muted">none</span>` : latest.statusCode}${latest.error === null || latest.error === `HTTP ${latest.statusCode}` ? "" : html` <span class="muted">${latest.error}</span>`}</td>
  <td data-label="Attempts">${attempts}</td>
  <td data-label="Last attempt">${formatTime(latest.at)}</td>
  <td data-label="Next retry">${latest.nextAttemptAt === null ? "—" : formatTime(latest.nextAttemptAt)}</td>
  <td data-label="Redeliver">${
    latest.outcome === "will_retry"
      ? html`<span class="muted">retrying</span>`
      : html`<form method="post" action="${base}/webhooks/${latest.deliveryId}/redeliver" class="inline">
    ${csrfField(options.viewer.csrfToken)}
    <button type="submit" aria-label="Redeliver ${latest.eventType} of ${latest.jobId}">Redeliver</button>
  </form>`
  }</td>
</tr>`
  return page({
    title: `Webhooks · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "webhooks")}
${alert("error", options.error)}
${alert("notice", options.notice)}
<section aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Recent deliveries</h2>
<p class="muted">${
      options.endpoint === null
        ? "No endpoint is set (the operator sets it: cli -- webhook set)."
        : html`Endpoint <code>${options.endpoint}</code>. A redelivery sends the same event (same delivery id) again.`
    }</p>
<div class="table-wrap"><table class="deliveries">
<thead><tr><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Status code</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Next retry</th><th scope="col"><span class="sr-only">Redeliver</span></th></tr></thead>
<tbody>${options.rows.map(row)}</tbody>
</table></div>
<p class="muted"${options.rows.length === 0 ? "" : html` hidden`}>No deliveries yet.</p>
</section>`
  })
}

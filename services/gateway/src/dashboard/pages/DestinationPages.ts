// A project's destinations: its S3 buckets and the folders the operator gave it (never a secret, never a folder's
// path), a form to add a bucket, and per destination a test and a removal.
import type { Destination } from "@mds/shared/domain/destination/DestinationState"
import { toDestinationBody } from "@mds/shared/api/Destinations"
import { formatTime } from "../html/Format.ts"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"

/** What the add form shows again after a refusal: everything but the secret, which is never sent back. */
export interface DestinationFormValues {
  readonly name: string
  readonly endpoint: string
  readonly bucket: string
  readonly region: string
  readonly prefix: string
  readonly access_key_id: string
}

export const emptyDestinationForm: DestinationFormValues = { name: "", endpoint: "", bucket: "", region: "", prefix: "", access_key_id: "" }

export const destinationsPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly destinations: ReadonlyArray<Destination>
  readonly form: DestinationFormValues
  readonly error: string | null
  readonly notice: string | null
}) => {
  const base = `/dashboard/projects/${options.project.projectId}/destinations`
  const csrf = csrfField(options.viewer.csrfToken)
  const row = (destination: Destination) => {
    const d = toDestinationBody(destination)
    const where =
      d.type === "s3"
        ? html`<code>${d.endpoint}/${d.bucket}/${d.prefix ?? ""}</code> <span class="muted">${d.region}, key ${d.access_key_id}</span>`
        : html`<span class="muted">a folder on the server, given by the operator</span>`
    return html`<tr data-destination="${d.id}">
  <td data-label="Name">${d.name}</td>
  <td data-label="Type">${d.type}</td>
  <td data-label="Where">${where}</td>
  <td data-label="Added">${formatTime(destination.createdAt)}</td>
  <td data-label="Actions"><form method="post" action="${base}/${d.id}/test" class="inline">
    ${csrf}
    <button type="submit" aria-label="Test ${d.name}">Test</button>
  </form> <form method="post" action="${base}/${d.id}/remove" class="inline">
    ${csrf}
    <button type="submit" class="danger" aria-label="Remove ${d.name}">Remove</button>
  </form></td>
</tr>`
  }
  const f = options.form
  return page({
    title: `Destinations · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "destinations")}
${alert("error", options.error)}
${alert("notice", options.notice)}
<section aria-labelledby="destinations-title">
<h2 id="destinations-title">Destinations</h2>
<p class="muted">Where this project's files can be delivered: S3-compatible buckets, and folders on the server the
operator gave the project. A test writes and removes a small probe object.</p>
<div class="table-wrap"><table class="destinations">
<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Where</th><th scope="col">Added</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${options.destinations.map(row)}</tbody>
</table></div>
<p class="muted"${options.destinations.length === 0 ? "" : html` hidden`}>No destinations yet.</p>
</section>
<section aria-labelledby="add-destination-title">
<h2 id="add-destination-title">Add an S3-compatible bucket</h2>
<p class="muted">The keys are stored encrypted and never shown again (only the access key id's last 4 characters).
A folder on the server can only be given by the operator.</p>
<form method="post" action="${base}" autocomplete="off">
  ${csrf}
  <label for="destination-name">Name</label>
  <input id="destination-name" name="name" required maxlength="100" value="${f.name}">
  <label for="destination-endpoint">Endpoint (e.g. https://s3.eu-central-1.amazonaws.com)</label>
  <input id="destination-endpoint" name="endpoint" type="url" required maxlength="2048" value="${f.endpoint}">
  <label for="destination-bucket">Bucket</label>
  <input id="destination-bucket" name="bucket" required minlength="3" maxlength="63" pattern="[a-z0-9][a-z0-9.\\-]{1,61}[a-z0-9]" value="${f.bucket}">
  <label for="destination-region">Region (default us-east-1)</label>
  <input id="destination-region" name="region" maxlength="32" value="${f.region}">
  <label for="destination-prefix">Prefix (optional, e.g. media/)</label>
  <input id="destination-prefix" name="prefix" maxlength="512" value="${f.prefix}">
  <label for="destination-access-key">Access key id</label>
  <input id="destination-access-key" name="access_key_id" required minlength="3" maxlength="128" value="${f.access_key_id}">
  <label for="destination-secret">Secret access key</label>
  <input id="destination-secret" name="secret_access_key" type="password" required minlength="8" maxlength="256" autocomplete="new-password">
  <button type="submit">Add destination</button>
</form>
</section>`
  })
}

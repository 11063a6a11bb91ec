// API key pages: the list with the create form, the secret shown once, revoke confirmation and the guided rotation.
import type { KeyView } from "@mds/shared/domain/account/AccountViews"
import { formatTime } from "../html/Format.ts"
import { type Html, html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"

const keyUrl = (project: ProjectRef, keyId: string) => `/dashboard/projects/${project.projectId}/keys/${keyId}`

const status = (key: KeyView) =>
  key.revokedAt === null
    ? html`<span class="badge ok">active</span>`
    : html`<span class="badge off" title="${formatTime(key.revokedAt)}">revoked</span>`

const keyRow = (project: ProjectRef, key: KeyView) =>
  html`<tr data-key-id="${key.keyId}">
  <td data-label="Name">${key.name}</td>
  <td data-label="Key"><code class="prefix">${key.prefix}…</code></td>
  <td data-label="Scopes">${key.scopes.join(", ")}</td>
  <td data-label="Created">${formatTime(key.createdAt)}</td>
  <td data-label="Last used">${formatTime(key.lastUsedAt)}</td>
  <td data-label="Status">${status(key)}</td>
  <td data-label="Actions" class="actions">${
    key.revokedAt === null
      ? html`<span><a href="${keyUrl(project, key.keyId)}/rotate">Rotate<span class="sr-only"> ${key.name}</span></a>
  <a href="${keyUrl(project, key.keyId)}/revoke" class="danger">Revoke<span class="sr-only"> ${key.name}</span></a></span>`
      : html`<span class="muted">none</span>`
  }</td>
</tr>`

export interface KeyForm {
  readonly name: string
  readonly environment: "live" | "test"
  readonly scopes: ReadonlyArray<string>
}

export const keysPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly keys: ReadonlyArray<KeyView>
  readonly form: KeyForm
  readonly error: string | null
  readonly notice: string | null
}) => {
  const { form, project } = options
  const scope = (value: string, hint: string) =>
    html`<label class="check"><input type="checkbox" name="scopes" value="${value}"${form.scopes.includes(value) ? html` checked` : ""}> <code>${value}</code> <span class="muted">${hint}</span></label>`
  const env = (value: "live" | "test", hint: string) =>
    html`<label class="check"><input type="radio" name="environment" value="${value}"${form.environment === value ? html` checked` : ""}> ${value} <span class="muted">${hint}</span></label>`
  return page({
    title: `API keys · ${project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(project, "keys")}
${alert("notice", options.notice)}
<section aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
${
  options.keys.length === 0
    ? html`<p class="muted">No keys yet.</p>`
    : html`<div class="table-wrap"><table class="keys">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${options.keys.map((key) => keyRow(project, key))}</tbody>
</table></div>`
}
</section>
<section aria-labelledby="new-key">
<h2 id="new-key">Create a key</h2>
${alert("error", options.error)}
<form method="post" action="/dashboard/projects/${project.projectId}/keys" class="stack">
  ${csrfField(options.viewer.csrfToken)}
  <label for="key-name">Name</label>
  <input id="key-name" name="name" required maxlength="100" value="${form.name}" placeholder="e.g. backend production">
  <fieldset><legend>Environment</legend>
    ${env("live", "svc_live_… for production")}
    ${env("test", "svc_test_… for development")}
  </fieldset>
  <fieldset><legend>Scopes</legend>
    ${scope("media:resolve", "POST /v1/media/resolve")}
    ${scope("media:download", "POST /v1/media/download")}
  </fieldset>
  <button type="submit" class="primary">Create key</button>
</form>
</section>`
  })
}

/** The one and only time the secret is shown. The page is never cached (Cache-Control: no-store). */
export const keyCreatedPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly name: string
  readonly secret: string
  /** Set during a rotation: the key the new one replaces. */
  readonly replaces: KeyView | null
}) => {
  const { project, replaces } = options
  return page({
    title: "New API key",
    viewer: options.viewer,
    body: html`${projectHeader(project, "keys")}
<section aria-labelledby="secret-title" class="secret-box">
<h2 id="secret-title">${replaces === null ? "Your new API key" : "Step 2 of 2: switch to the replacement key"}: ${options.name}</h2>
<p class="alert notice" role="status">Copy the key now. It is shown only this once and cannot be shown again; only a hash of it is stored.</p>
<label for="secret">API key</label>
<div class="copy-row">
  <input id="secret" class="secret" readonly value="${options.secret}" autocomplete="off" spellcheck="false" data-select-on-focus>
  <button type="button" class="primary" data-copy-target="secret" hidden>Copy</button>
</div>
<p class="muted" data-copy-status role="status" aria-live="polite"></p>
<p>Send it in the <code>X-API-Key</code> header (or <code>Authorization: Bearer</code>), from your servers only: never in a URL, front-end code or version control.</p>
</section>
${
  replaces === null
    ? html`<p><a href="/dashboard/projects/${project.projectId}/keys">Done: back to the keys</a></p>`
    : html`<section aria-labelledby="revoke-old">
<h2 id="revoke-old">Then revoke the old key</h2>
<p>Put the new key into your services and check that resolve and download work. Then revoke the old key
<strong>${replaces.name}</strong> (<code>${replaces.prefix}…</code>): from then on every request with it is refused.</p>
<form method="post" action="/dashboard/projects/${project.projectId}/keys/${replaces.keyId}/revoke" class="inline">
  ${csrfField(options.viewer.csrfToken)}
  <input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">I have switched: revoke the old key</button>
</form>
<p><a href="/dashboard/projects/${project.projectId}/keys">Not yet: back to the keys (the old key keeps working)</a></p>
</section>`
}`
  })
}

type KeyPageOptions = { readonly viewer: Viewer; readonly project: ProjectRef; readonly key: KeyView }

/** Asks to confirm an action on a key: what it will do, then a form posting to the key's `action` path, or Cancel. */
const confirmKeyPage = (
  options: KeyPageOptions,
  confirm: { readonly action: "revoke" | "rotate"; readonly title: string; readonly explanation: Html; readonly submit: Html }
) => {
  const { key, project } = options
  return page({
    title: `${confirm.title} ${key.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(project, "keys")}
<section aria-labelledby="${confirm.action}-title">
${confirm.explanation}
<form method="post" action="${keyUrl(project, key.keyId)}/${confirm.action}" class="inline">
  ${csrfField(options.viewer.csrfToken)}
  ${confirm.submit}
  <a href="/dashboard/projects/${project.projectId}/keys">Cancel</a>
</form>
</section>`
  })
}

export const revokePage = (options: KeyPageOptions) => {
  const { key } = options
  return confirmKeyPage(options, {
    action: "revoke",
    title: "Revoke",
    explanation: html`<h2 id="revoke-title">Revoke the key “${key.name}”?</h2>
<p><code>${key.prefix}…</code> · ${key.scopes.join(", ")} · last used ${formatTime(key.lastUsedAt)}</p>
<p>Every request with this key will be refused, on every gateway, within about a second. This cannot be undone.</p>`,
    submit: html`<input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">Revoke key</button>`
  })
}

export const rotatePage = (options: KeyPageOptions) => {
  const { key } = options
  return confirmKeyPage(options, {
    action: "rotate",
    title: "Rotate",
    explanation: html`<h2 id="rotate-title">Rotate the key “${key.name}”</h2>
<ol>
  <li>Create a replacement with the same name, environment and scopes (${key.scopes.join(", ")}).</li>
  <li>Switch your services to it and check that resolve and download work.</li>
  <li>Revoke the old key <code>${key.prefix}…</code>. Until you do, both keys work.</li>
</ol>`,
    submit: html`<button type="submit" class="primary">Step 1: create the replacement key</button>`
  })
}

// A project's platform cookies: what is stored (metadata only), a form to upload a cookies.txt, and removal.
import type { CookieJarInfo } from "@mds/shared/domain/cookies/CookieJars"
import { formatTime } from "../html/Format.ts"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"

export const cookiesPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly jars: ReadonlyArray<CookieJarInfo>
  readonly error: string | null
  readonly notice: string | null
}) => {
  const base = `/dashboard/projects/${options.project.projectId}/cookies`
  const row = (jar: CookieJarInfo) =>
    html`<tr data-platform="${jar.platform}">
  <td data-label="Platform"><code>${jar.platform}</code></td>
  <td data-label="Domains">${jar.domains.join(", ")}</td>
  <td data-label="Cookies">${jar.cookieCount}</td>
  <td data-label="Expires">${jar.expiresAt === null ? "session" : formatTime(jar.expiresAt)}</td>
  <td data-label="Updated">${formatTime(jar.updatedAt)} <span class="muted">${jar.change}</span></td>
  <td data-label="Remove"><form method="post" action="${base}/${jar.platform}/remove" class="inline">
    ${csrfField(options.viewer.csrfToken)}
    <button type="submit" class="danger" aria-label="Remove the cookies for ${jar.platform}">Remove</button>
  </form></td>
</tr>`
  return page({
    title: `Cookies · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "cookies")}
${alert("error", options.error)}
${alert("notice", options.notice)}
<section aria-labelledby="cookies-title">
<h2 id="cookies-title">Platform cookies</h2>
<p class="muted">For login-only, age-gated or region-bound media. Stored encrypted; used only for this project's
resolves and downloads of that platform. Cookies are never shown again, only what is below.</p>
<div class="table-wrap"><table class="cookies">
<thead><tr><th scope="col">Platform</th><th scope="col">Domains</th><th scope="col">Cookies</th><th scope="col">Expires</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Remove</span></th></tr></thead>
<tbody>${options.jars.map(row)}</tbody>
</table></div>
<p class="muted"${options.jars.length === 0 ? "" : html` hidden`}>No cookies stored.</p>
</section>
<section aria-labelledby="upload-title">
<h2 id="upload-title">Upload a cookies.txt</h2>
<form method="post" action="${base}">
  ${csrfField(options.viewer.csrfToken)}
  <label for="cookie-platform">Platform id of the site's host (GET /v1/platforms lists them with cookies: true; generic for any other site)</label>
  <input id="cookie-platform" name="platform" required maxlength="64" pattern="[a-z0-9_\\-]+" autocomplete="off">
  <label for="cookie-file">Netscape cookies.txt (replaces the platform's stored file)</label>
  <textarea id="cookie-file" name="cookies_txt" required rows="8" spellcheck="false" autocomplete="off"></textarea>
  <button type="submit">Store cookies</button>
</form>
</section>`
  })
}

// A project's settings: rename, quotas, members.
import type { ProjectView } from "@mds/shared/domain/account/AccountViews"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import type { QuotaStanding } from "@mds/shared/domain/admission/Quota"
import { quotaBars } from "./QuotaBars.ts"

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

// Sign-in, the project list and error pages.
import type { ProjectView } from "@mds/shared/domain/account/AccountViews"
import { html } from "../html/Html.ts"
import { alert, csrfField, page, type Viewer } from "../html/Layout.ts"

export const loginPage = (options: {
  readonly csrfToken: string
  readonly email: string
  readonly error: string | null
  /** The dashboard page to continue to once signed in. */
  readonly next: string | null
}) =>
  page({
    title: "Sign in",
    viewer: null,
    body: html`<section class="narrow">
<h1>Sign in</h1>
${alert("error", options.error)}
<form method="post" action="/dashboard/login" class="stack">
  ${csrfField(options.csrfToken)}
  ${options.next === null ? "" : html`<input type="hidden" name="next" value="${options.next}">`}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${options.email}" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
  <button type="submit" class="primary">Sign in</button>
</form>
<p class="muted">Accounts are created by the operator: <code>npm run --silent cli -- user create EMAIL</code>.</p>
</section>`
  })

export const projectsPage = (options: {
  readonly viewer: Viewer
  readonly projects: ReadonlyArray<ProjectView>
  readonly error: string | null
  readonly name: string
}) =>
  page({
    title: "Projects",
    viewer: options.viewer,
    body: html`<h1>Projects</h1>
${
  options.projects.length === 0
    ? html`<p class="muted">You are not a member of any project yet. Create one below.</p>`
    : html`<ul class="cards">${options.projects.map(
        (project) =>
          html`<li><a href="/dashboard/projects/${project.projectId}/keys">${project.name}</a>
<span class="muted"><code>${project.projectId}</code> · ${project.members.length} member${project.members.length === 1 ? "" : "s"}</span></li>`
      )}</ul>`
}
<section aria-labelledby="new-project">
<h2 id="new-project">New project</h2>
${alert("error", options.error)}
<form method="post" action="/dashboard/projects" class="inline">
  ${csrfField(options.viewer.csrfToken)}
  <label for="project-name">Name</label>
  <input id="project-name" name="name" required maxlength="100" value="${options.name}">
  <button type="submit" class="primary">Create project</button>
</form>
</section>`
  })

export const errorPage = (options: { readonly viewer: Viewer | null; readonly title: string; readonly message: string }) =>
  page({
    title: options.title,
    viewer: options.viewer,
    body: html`<h1>${options.title}</h1><p>${options.message}</p><p><a href="/dashboard">Back to your projects</a></p>`
  })

// Pages of the share route: continue here from another site (to carry the session), or choose the project to download with.
import type { ProjectView } from "@mds/shared/domain/account/AccountViews"
import { html } from "../html/Html.ts"
import { page, type Viewer } from "../html/Layout.ts"

/**
 * A navigation started by another site (the bookmarklet runs there) carries no SameSite=Strict cookie, so the session
 * is not seen. This page continues to the same address at once: that navigation starts here, and carries it.
 */
export const continuePage = (path: string) =>
  page({
    title: "Opening the download page",
    viewer: null,
    continueTo: path,
    body: html`<h1>Opening the download page</h1><p><a href="${path}">Continue</a></p>`
  })

export const chooseProjectPage = (options: {
  readonly viewer: Viewer
  readonly projects: ReadonlyArray<ProjectView>
  readonly link: string
}) =>
  page({
    title: "Download with which project?",
    viewer: options.viewer,
    body: html`<h1 tabindex="-1" autofocus>Download with which project?</h1>
${options.link === "" ? html`<p class="muted">No link came with the share.</p>` : html`<p><code>${options.link}</code></p>`}
${
  options.projects.length === 0
    ? html`<p>You are not a member of any project yet. <a href="/dashboard">Create one</a> first.</p>`
    : html`<ul class="cards">${options.projects.map(
        (project) =>
          html`<li><a href="/dashboard/projects/${project.projectId}/download${options.link === "" ? "" : `?${new URLSearchParams({ url: options.link })}`}">${project.name}</a>
<span class="muted"><code>${project.projectId}</code></span></li>`
      )}</ul>`
}`
  })

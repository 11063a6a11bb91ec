// The page shell every dashboard page shares: head with the one stylesheet and script (no inline code), header, main.
import { type Html, html } from "./Html.ts"

export interface Viewer {
  readonly email: string
  readonly csrfToken: string
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`

export const page = (options: {
  readonly title: string
  readonly viewer: Viewer | null
  readonly body: Html
  /** Load this same-origin path at once (a navigation this page starts, so the browser sends its SameSite cookies). */
  readonly continueTo?: string
}): Html =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
${options.continueTo === undefined ? "" : html`<meta http-equiv="refresh" content="0; url=${options.continueTo}">`}
<title>${options.title} · Media Download Service</title>
<link rel="icon" href="/dashboard/assets/icon.svg" type="image/svg+xml">
<link rel="manifest" href="/dashboard/manifest.webmanifest">
<link rel="apple-touch-icon" href="/dashboard/assets/icon-192.png">
<meta name="theme-color" content="#1d5fd1">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
<script src="/dashboard/assets/download.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">Media Download Service</a>
  ${
    options.viewer === null
      ? ""
      : html`<div class="who">
    <span class="email">${options.viewer.email}</span>
    <form method="post" action="/dashboard/logout">${csrfField(options.viewer.csrfToken)}<button type="submit" class="link">Sign out</button></form>
  </div>`
  }
</header>
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>
`

export interface ProjectRef {
  readonly projectId: string
  readonly name: string
}

/** The project's heading and its sections; the current one is marked for assistive technology. */
export const projectHeader = (
  project: ProjectRef,
  active: "download" | "keys" | "jobs" | "usage" | "webhooks" | "cookies" | "destinations" | "subscriptions" | "settings"
) => {
  const base = `/dashboard/projects/${project.projectId}`
  const link = (section: typeof active, href: string, label: string) =>
    html`<a href="${href}"${section === active ? html` aria-current="page"` : ""}>${label}</a>`
  return html`<p class="crumbs"><a href="/dashboard">Projects</a> /</p>
<h1>${project.name}</h1>
<p class="muted">Project id <code>${project.projectId}</code></p>
<nav class="tabs" aria-label="Project sections">
  ${link("download", `${base}/download`, "Download")}
  ${link("keys", `${base}/keys`, "API keys")}
  ${link("jobs", `${base}/jobs`, "Jobs")}
  ${link("usage", `${base}/usage`, "Usage")}
  ${link("webhooks", `${base}/webhooks`, "Webhooks")}
  ${link("cookies", `${base}/cookies`, "Cookies")}
  ${link("destinations", `${base}/destinations`, "Destinations")}
  ${link("subscriptions", `${base}/subscriptions`, "Subscriptions")}
  ${link("settings", `${base}/settings`, "Settings")}
</nav>`
}

export const alert = (kind: "error" | "notice", message: string | null) =>
  message === null ? "" : html`<p class="alert ${kind}" role="${kind === "error" ? "alert" : "status"}">${message}</p>`

// Progressive enhancement for the dashboard: a copy button for the one-time secret and the live jobs list (download.js
// has the Download tab's).
// Every page works without this file. It never stores anything (no cookies, no localStorage) and builds DOM with
// textContent only, so no server value is ever parsed as HTML.
"use strict"

function setUpCopyButtons() {
  for (const button of document.querySelectorAll("[data-copy-target]")) {
    const input = document.getElementById(button.getAttribute("data-copy-target"))
    const status = document.querySelector("[data-copy-status]")
    if (input === null) continue
    button.hidden = false
    button.addEventListener("click", async () => {
      let copied = false
      try {
        await navigator.clipboard.writeText(input.value)
        copied = true
      } catch {
        input.focus()
        input.select()
        copied = document.execCommand("copy")
      }
      if (status !== null) status.textContent = copied ? "Copied to the clipboard." : "Select the key and copy it (Ctrl+C)."
    })
  }
  for (const input of document.querySelectorAll("[data-select-on-focus]")) {
    input.addEventListener("focus", () => input.select())
  }
}

function jobCell(label, child) {
  const td = document.createElement("td")
  td.dataset.label = label
  if (typeof child === "string") td.textContent = child
  else for (const node of child) td.append(node)
  return td
}

function element(tag, options) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(options.attributes || {})) node.setAttribute(name, value)
  if (options.text !== undefined) node.textContent = options.text
  return node
}

const ACTION_LABELS = { retry: "Retry", cancel: "Cancel", stop: "Stop recording" }

/** The same markup as the server's actionControl (services/gateway/src/dashboard/pages/JobActionButtons.ts). */
function actionControl(base, jobId, name, filename, action) {
  const jobBase = `${base}/jobs/${jobId}`
  if (action === "save") {
    const link = element("a", {
      attributes: { class: "button save", href: `${jobBase}/file`, download: filename ?? "", "data-action": "save" }
    })
    link.append("Save", element("span", { text: ` ${name}`, attributes: { class: "sr-only" } }))
    return link
  }
  const form = element("form", { attributes: { method: "post", action: `${jobBase}/${action}`, class: "inline", "data-action": action } })
  const csrf = document.querySelector('input[name="_csrf"]')
  form.append(
    element("input", { attributes: { type: "hidden", name: "_csrf", value: csrf === null ? "" : csrf.value } }),
    element("input", { attributes: { type: "hidden", name: "from", value: "jobs" } })
  )
  const button = element("button", {
    text: ACTION_LABELS[action],
    attributes: action === "cancel" ? { type: "submit", class: "danger" } : { type: "submit" }
  })
  button.append(element("span", { text: ` ${name}`, attributes: { class: "sr-only" } }))
  form.append(button)
  return form
}

/** The same markup as the server's jobRow (services/gateway/src/dashboard/pages/JobsPage.ts). */
function jobRow(base, job) {
  const tr = element("tr", {
    attributes: { id: job.id, "data-job-id": job.id, "data-status": job.status, "data-created": String(job.created) }
  })
  const media = element("div", { attributes: { class: "media-cell" } })
  if (job.thumbnail !== "") {
    media.append(
      element("img", { attributes: { class: "thumb-small", src: job.thumbnail, alt: "", loading: "lazy", referrerpolicy: "no-referrer" } })
    )
  }
  const title = element("span", {})
  title.append(
    element("a", { text: job.title ?? job.url, attributes: { href: `${base}/download/jobs/${job.id}`, "data-field": "title" } }),
    element("br", {}),
    element("code", { text: job.id })
  )
  media.append(title)
  const name = job.title ?? job.id
  const actions = element("div", { attributes: { class: "actions" } })
  actions.append(...job.actions.map((action) => actionControl(base, job.id, name, job.filename, action)))
  tr.append(
    jobCell("Media", [media]),
    jobCell("Status", [
      element("span", { text: job.status, attributes: { class: `badge ${job.status}`, "data-field": "status" } }),
      ...(job.startsAt === null || job.startsAt === undefined
        ? []
        : [
            document.createTextNode(" "),
            element("span", { text: `starts ${job.startsAt}`, attributes: { class: "muted", "data-field": "starts-at" } })
          ]),
      ...(job.delivery === null || job.delivery === undefined
        ? []
        : [element("br", {}), element("span", { text: job.delivery, attributes: { class: "muted", "data-field": "delivery" } })])
    ]),
    jobCell("Progress", [
      element("progress", { attributes: { max: "100", value: String(job.progress), "aria-label": `Progress of ${job.id}` } }),
      document.createTextNode(" "),
      element("span", { text: job.progressText, attributes: { "data-field": "progress" } })
    ]),
    jobCell("Format", [document.createTextNode(`${job.format} `), element("span", { text: job.platform, attributes: { class: "muted" } })]),
    jobCell("Created", job.createdAt),
    jobCell("Error", job.error === null ? "" : job.error),
    jobCell("Actions", [actions])
  )
  tr.children[5].dataset.field = "error"
  return tr
}

/**
 * Follows the list's server-sent events (services/gateway/src/dashboard/handlers/ProjectHandlers.ts, jobEvents):
 * `jobs` is the whole list (at every connection, so a reconnect catches up), `job` a row that changed or joined the
 * filter, `gone` a job that left it. The browser reconnects by itself when the stream ends; a refused reconnect
 * (signed out: 401) closes it, and the page keeps what it shows.
 */
function setUpLiveJobs() {
  const body = document.querySelector("[data-live-jobs]")
  if (body === null || typeof EventSource !== "function") return
  const empty = document.querySelector("[data-empty-jobs]")
  const limit = Number(body.getAttribute("data-live-limit")) || 50
  const base = body.getAttribute("data-base")
  const rowOf = (id) => [...body.children].find((tr) => tr.dataset.jobId === id) ?? null
  const settle = () => {
    while (body.children.length > limit) body.lastElementChild.remove()
    if (empty !== null) empty.hidden = body.children.length > 0
    body.dataset.updatedAt = String(Date.now())
  }
  const events = new EventSource(body.getAttribute("data-live-jobs"))
  events.addEventListener("jobs", (event) => {
    body.replaceChildren(...JSON.parse(event.data).jobs.map((job) => jobRow(base, job)))
    body.dataset.live = "open"
    settle()
  })
  events.addEventListener("job", (event) => {
    const job = JSON.parse(event.data)
    const row = jobRow(base, job)
    const current = rowOf(job.id)
    if (current !== null) current.replaceWith(row)
    else body.insertBefore(row, [...body.children].find((tr) => Number(tr.dataset.created) < job.created) ?? null)
    settle()
  })
  events.addEventListener("gone", (event) => {
    rowOf(JSON.parse(event.data).id)?.remove()
    settle()
  })
  events.addEventListener("error", () => {
    if (events.readyState === EventSource.CLOSED) body.dataset.live = "closed"
  })
}

document.addEventListener("DOMContentLoaded", () => {
  setUpCopyButtons()
  setUpLiveJobs()
})

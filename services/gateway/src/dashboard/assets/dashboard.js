// Progressive enhancement for the dashboard: a copy button for the one-time secret and live job progress.
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

/** The same markup as the server's jobRow (services/gateway/src/dashboard/pages/ProjectPages.ts). */
function jobRow(job) {
  const tr = element("tr", { attributes: { id: job.id, "data-job-id": job.id, "data-status": job.status } })
  tr.append(
    jobCell("Job", [element("code", { text: job.id })]),
    jobCell("Status", [element("span", { text: job.status, attributes: { class: `badge ${job.status}`, "data-field": "status" } })]),
    jobCell("Progress", [
      element("progress", { attributes: { max: "100", value: String(job.progress), "aria-label": `Progress of ${job.id}` } }),
      document.createTextNode(" "),
      element("span", { text: `${job.progress}%`, attributes: { "data-field": "progress" } })
    ]),
    jobCell("Format", [document.createTextNode(`${job.format} `), element("span", { text: job.platform, attributes: { class: "muted" } })]),
    jobCell("Created", job.createdAt),
    jobCell("Error", job.error === null ? "" : job.error)
  )
  tr.lastChild.dataset.field = "error"
  return tr
}

const POLL_MS = 1500

function setUpLiveJobs() {
  const body = document.querySelector("[data-live-jobs]")
  if (body === null) return
  const source = body.getAttribute("data-live-jobs")
  const empty = document.querySelector("[data-empty-jobs]")
  let stopped = false
  const refresh = async () => {
    if (stopped || document.hidden) return
    try {
      const response = await fetch(source, { headers: { accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      if (response.status === 401) {
        stopped = true
        return
      }
      if (!response.ok) return
      const { jobs } = await response.json()
      body.replaceChildren(...jobs.map(jobRow))
      if (empty !== null) empty.hidden = jobs.length > 0
      body.dataset.refreshedAt = String(Date.now())
    } catch {
      // A missed refresh is retried on the next tick.
    }
  }
  setInterval(refresh, POLL_MS)
}

document.addEventListener("DOMContentLoaded", () => {
  setUpCopyButtons()
  setUpLiveJobs()
})

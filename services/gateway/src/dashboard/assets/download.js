// Progressive enhancement for the Download tab: paste on focus, the Retry-After countdown, one job's live progress
// (the API's own job event stream), the playlist's select-all, and one submission per form. Every page works without
// this file. It stores nothing (no cookies, no localStorage) and builds DOM with textContent only.
"use strict"

const LINK = /^https?:\/\/\S+$/i

/**
 * The link field takes a link from the clipboard when focused while empty, if the browser already allows reading it
 * (no prompt on every focus); otherwise the Paste button asks, once the user presses it.
 */
function setUpPaste() {
  const input = document.querySelector("[data-paste-on-focus]")
  const clipboard = navigator.clipboard
  if (input === null || clipboard === undefined || typeof clipboard.readText !== "function") return
  const paste = async (asked) => {
    try {
      const text = (await clipboard.readText()).trim()
      if (LINK.test(text) && (asked || input.value === "")) {
        input.value = text
        input.select()
      }
    } catch {
      // Refused or empty: the user types or pastes as usual.
    }
  }
  input.addEventListener("focus", async () => {
    if (input.value !== "" || navigator.permissions === undefined) return
    const state = await navigator.permissions.query({ name: "clipboard-read" }).then(
      (status) => status.state,
      () => "prompt"
    )
    if (state === "granted") await paste(false)
  })
  const button = document.querySelector("[data-paste]")
  if (button === null) return
  button.hidden = false
  button.addEventListener("click", async () => {
    await paste(true)
    input.focus()
  })
}

/** Retry-After, counted down; the buttons that would be refused again stay disabled until it reaches zero. */
function setUpCountdown() {
  const box = document.querySelector("[data-countdown]")
  if (box === null) return
  const seconds = box.querySelector("[data-countdown-seconds]")
  const done = document.querySelector("[data-countdown-done]")
  const buttons = [...document.querySelectorAll("[data-wait-for-countdown]")]
  const end = Date.now() + Number(box.dataset.countdown) * 1000
  for (const button of buttons) button.disabled = true
  const tick = () => {
    const left = Math.max(0, Math.ceil((end - Date.now()) / 1000))
    seconds.textContent = String(left)
    box.dataset.left = String(left)
    if (left > 0) {
      setTimeout(tick, 250)
      return
    }
    for (const button of buttons) button.disabled = false
    box.textContent = "You can try again now."
    if (done !== null) done.textContent = "You can try again now."
  }
  tick()
}

/** What a job allows, by its status (services/gateway/src/dashboard/jobs/JobActions.ts): keep the two in step. */
function jobActions(status, retryable, recording) {
  switch (status) {
    case "completed":
      return ["save"]
    case "failed":
      return retryable ? ["retry"] : []
    case "queued":
      return ["cancel"]
    case "processing":
      return recording ? ["stop", "cancel"] : ["cancel"]
    default:
      return []
  }
}

const ANNOUNCEMENTS = {
  queued: () => "Queued: waiting for a free download slot.",
  processing: () => "Downloading.",
  completed: (job) => `Done: ${job.result?.filename ?? "the file"} is ready to save.`,
  failed: (job) => `Failed: ${job.error?.message ?? "the download did not finish."}`
}

/**
 * A job's page follows GET /v1/jobs/{jobId}/events (through the dashboard, as the member's project): a `job` event
 * with the API's Job at every change of status or progress; the stream ends when the job does.
 */
function setUpLiveJob() {
  const section = document.querySelector("[data-live-job]")
  if (section === null || typeof EventSource !== "function") return
  const field = (name) => section.querySelector(`[data-field="${name}"]`)
  const progress = section.querySelector("progress")
  let shown = section.dataset.status
  const events = new EventSource(section.dataset.liveJob)
  events.addEventListener("job", (event) => {
    const job = JSON.parse(event.data)
    section.dataset.status = job.status
    section.dataset.live = "open"
    field("status").textContent = job.status
    field("status").className = `badge ${job.status}`
    progress.value = job.progress
    field("progress").textContent =
      job.recording !== undefined && job.recording.ended === null ? `recording ${job.recording.seconds} s` : `${job.progress}%`
    const error = field("error")
    error.hidden = job.error === undefined
    error.textContent = job.error === undefined ? "" : `${job.error.code}: ${job.error.message}`
    const recording = job.recording !== undefined && job.recording.ended === null && !job.recording.stop_requested
    const allowed = jobActions(job.status, job.error?.retryable === true, recording)
    for (const control of section.querySelectorAll("[data-action]")) control.hidden = !allowed.includes(control.dataset.action)
    if (job.result !== undefined) {
      const save = section.querySelector('[data-action="save"]')
      save.setAttribute("download", job.result.filename)
      save.querySelector('[data-field="filename"]').textContent = job.result.filename
    }
    if (job.status !== shown) {
      shown = job.status
      field("announce").textContent = ANNOUNCEMENTS[job.status]?.(job) ?? job.status
    }
    if (job.status === "completed" || job.status === "failed") {
      events.close()
      section.dataset.live = "ended"
    }
  })
  events.addEventListener("error", () => {
    if (events.readyState === EventSource.CLOSED && section.dataset.live !== "ended") section.dataset.live = "closed"
  })
}

/** A playlist's entries: one button ticks them all or none. */
function setUpEntryToggle() {
  const button = document.querySelector("[data-toggle-entries]")
  if (button === null) return
  const boxes = [...document.querySelectorAll('input[name="entries"]')]
  const update = () => {
    button.textContent = boxes.every((box) => box.checked) ? "Select none" : "Select all"
  }
  button.hidden = false
  update()
  button.addEventListener("click", () => {
    const all = !boxes.every((box) => box.checked)
    for (const box of boxes) box.checked = all
    update()
  })
  for (const box of boxes) box.addEventListener("change", update)
}

/**
 * A looked-up link can take seconds: the button says so, and a second press is ignored (the download form also carries
 * an Idempotency-Key, so even a second submission would queue one job). Coming back to the page resets it.
 */
function setUpBusyForms() {
  for (const form of document.querySelectorAll("form.lookup, form.download-form")) {
    form.addEventListener("submit", (event) => {
      if (form.dataset.sent === "1") {
        event.preventDefault()
        return
      }
      form.dataset.sent = "1"
      form.setAttribute("aria-busy", "true")
      const button = event.submitter
      if (button instanceof HTMLButtonElement && form.classList.contains("lookup")) {
        button.dataset.label = button.textContent
        button.textContent = "Looking up…"
      }
    })
  }
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return
    for (const form of document.querySelectorAll("form[data-sent]")) {
      delete form.dataset.sent
      form.removeAttribute("aria-busy")
    }
    for (const button of document.querySelectorAll("button[data-label]")) button.textContent = button.dataset.label
  })
}

/** After a form, the page's result (or its refusal) has the focus; `autofocus` does it where the browser honours it. */
function focusResult() {
  const wanted = document.querySelector("main [autofocus]")
  if (wanted !== null && document.activeElement !== wanted) wanted.focus()
}

document.addEventListener("DOMContentLoaded", () => {
  setUpPaste()
  setUpCountdown()
  setUpLiveJob()
  setUpEntryToggle()
  setUpBusyForms()
  focusResult()
})

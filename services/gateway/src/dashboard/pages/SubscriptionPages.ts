// A project's subscriptions: each with its status, last and next check and its counts, its actions, and the add form.
import { formatIdOf } from "@mds/shared/domain/media/FormatId"
import { retentionWords } from "@mds/shared/domain/subscription/SubscriptionRetention"
import { type SubscriptionSummary, subscriptionStatus } from "@mds/shared/domain/subscription/SubscriptionState"
import { formatTime } from "../html/Format.ts"
import { type Html, html } from "../html/Html.ts"
import { alert, csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import type { SubscriptionFormValues } from "../SubscriptionForm.ts"
import { type DestinationChoice, destinationFields } from "./DestinationField.ts"

const FORMATS = ["audio_mp3", "audio_m4a", "audio_best", "video_best", "video_1080p", "video_720p", "video_480p"]
const INTERVALS: ReadonlyArray<readonly [string, string]> = [
  ["900", "every 15 minutes"],
  ["3600", "every hour"],
  ["21600", "every 6 hours"],
  ["86400", "every day"]
]
const BADGE = { active: "ok", paused: "", failing: "off" } as const

const every = (ms: number) => INTERVALS.find(([seconds]) => Number(seconds) * 1000 === ms)?.[1] ?? `every ${Math.round(ms / 60_000)} min`

const filtersOf = (s: SubscriptionSummary): string =>
  [
    s.filters.titleContains === undefined ? "" : `title contains “${s.filters.titleContains}”`,
    s.filters.minDurationSeconds === undefined ? "" : `≥ ${s.filters.minDurationSeconds} s`,
    s.filters.maxDurationSeconds === undefined ? "" : `≤ ${s.filters.maxDurationSeconds} s`,
    s.filters.publishedAfter === undefined ? "" : `after ${formatTime(s.filters.publishedAfter).slice(0, 10)}`
  ]
    .filter((part) => part !== "")
    .join(", ")

/** Where its entries go (a destination, by name) and what its retention keeps; "" for files kept on the service. */
const libraryOf = (s: SubscriptionSummary, destinations: ReadonlyArray<DestinationChoice>): string => {
  const destinationId = s.options?.delivery?.destinationId
  if (destinationId === undefined) return ""
  const name = destinations.find((d) => d.destinationId === destinationId)?.name ?? destinationId
  const rule = s.retention === undefined ? "" : `, ${retentionWords(s.retention)}`
  return `into ${name}${rule}`
}

const lastCheck = (s: SubscriptionSummary): Html | string =>
  s.lastCheck === null
    ? html`<span class="muted">not yet</span>`
    : html`${formatTime(s.lastCheck.at)}<br><span class="muted" data-field="counts">${s.lastCheck.found} found · ${s.lastCheck.new} new · ${s.lastCheck.filtered} filtered · ${s.lastCheck.queued} queued</span>`

/** One form, one button per action (each posts to its own path), so the buttons sit in a row. */
const action = (href: string, label: string, name: string, kind: "" | "danger" = "") =>
  html`<button type="submit" formaction="${href}"${kind === "" ? "" : html` class="${kind}"`}>${label}<span class="sr-only"> ${name}</span></button>`

const row = (base: string, csrf: string, s: SubscriptionSummary, destinations: ReadonlyArray<DestinationChoice>) => {
  const status = subscriptionStatus(s)
  const href = `${base}/${s.subscriptionId}`
  const library = libraryOf(s, destinations)
  return html`<tr data-subscription-id="${s.subscriptionId}" data-status="${status}">
  <td data-label="Subscription"><a href="${s.url}" rel="noreferrer noopener">${s.url}</a><br><span class="muted">${formatIdOf(s.format)} · ${every(s.checkEveryMs)}${filtersOf(s) === "" ? "" : html` · ${filtersOf(s)}`}${library === "" ? "" : html` · <span data-field="library">${library}</span>`}</span></td>
  <td data-label="Status"><span class="badge ${BADGE[status]}" data-field="status">${status}</span></td>
  <td data-label="Last check">${lastCheck(s)}</td>
  <td data-label="Next check">${s.paused ? html`<span class="muted">paused</span>` : formatTime(s.nextCheckAt)}</td>
  <td data-label="Last error" data-field="error">${s.lastError === null ? "" : `${s.lastError.code}: ${s.lastError.message}`}</td>
  <td data-label="Actions" class="actions"><form method="post" action="${href}/check" class="inline">${csrfField(csrf)}${
    s.paused ? action(`${href}/resume`, "Resume", s.url) : action(`${href}/pause`, "Pause", s.url)
  }${s.paused ? "" : action(`${href}/check`, "Check now", s.url)}${action(`${href}/remove`, "Remove", s.url, "danger")}</form></td>
</tr>`
}

const option = (value: string, label: string, chosen: string) =>
  html`<option value="${value}"${value === chosen ? html` selected` : ""}>${label}</option>`

export const subscriptionsPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly subscriptions: ReadonlyArray<SubscriptionSummary>
  readonly destinations: ReadonlyArray<DestinationChoice>
  readonly form: SubscriptionFormValues
  readonly error: string | null
  readonly notice: string | null
}) => {
  const base = `/dashboard/projects/${options.project.projectId}/subscriptions`
  const csrf = options.viewer.csrfToken
  const { form } = options
  return page({
    title: `Subscriptions · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "subscriptions")}
${alert("error", options.error)}
${alert("notice", options.notice)}
<section aria-labelledby="subscriptions-title">
<h2 id="subscriptions-title">Subscriptions</h2>
<p class="muted">Followed playlists, channels and feeds. Each check queues what is new, once per project, with the
project's cookies and within its download slots.</p>
<div class="table-wrap"><table class="subscriptions">
<thead><tr><th scope="col">Subscription</th><th scope="col">Status</th><th scope="col">Last check</th><th scope="col">Next check</th><th scope="col">Last error</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${options.subscriptions.map((s) => row(base, csrf, s, options.destinations))}</tbody>
</table></div>
<p class="muted"${options.subscriptions.length === 0 ? "" : html` hidden`}>No subscriptions yet.</p>
</section>
<section aria-labelledby="add-subscription-title">
<h2 id="add-subscription-title">Add a subscription</h2>
<form method="post" action="${base}" class="stack">
  ${csrfField(csrf)}
  <label for="subscription-url">Playlist, channel or feed URL</label>
  <input id="subscription-url" name="url" required inputmode="url" maxlength="2048" value="${form.url}" autocomplete="off">
  <label for="subscription-format">Format of every new entry</label>
  <select id="subscription-format" name="format">${FORMATS.map((f) => option(f, f, form.format))}</select>
  <label for="subscription-every">How often to check</label>
  <select id="subscription-every" name="check_every">${INTERVALS.map(([seconds, label]) => option(seconds, label, form.check_every))}</select>
  <fieldset>
  <legend>Filters (optional)</legend>
  <label for="subscription-title">Title contains</label>
  <input id="subscription-title" name="title_contains" maxlength="200" value="${form.title_contains}">
  <label for="subscription-min">Minimum duration (seconds)</label>
  <input id="subscription-min" name="min_duration" inputmode="numeric" pattern="[0-9]*" value="${form.min_duration}">
  <label for="subscription-max">Maximum duration (seconds)</label>
  <input id="subscription-max" name="max_duration" inputmode="numeric" pattern="[0-9]*" value="${form.max_duration}">
  <label for="subscription-after">Published after (a date, UTC)</label>
  <input id="subscription-after" name="published_after" placeholder="YYYY-MM-DD" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}" value="${form.published_after}">
  </fieldset>
  <label for="subscription-backfill">Backfill: how many of the newest current entries to download now (0 to 50)</label>
  <input id="subscription-backfill" name="backfill" inputmode="numeric" pattern="[0-9]*" value="${form.backfill}">
  <fieldset>
  <legend>Deliver into a destination (optional)</legend>
  ${destinationFields("subscription", options.destinations, form)}
  <label for="subscription-keep">Keep in the destination</label>
  <select id="subscription-keep" name="keep">${option("", "every entry", form.keep)}${option("last", "the newest entries", form.keep)}${option("days", "entries of the last days", form.keep)}</select>
  <label for="subscription-keep-count">How many entries, or days</label>
  <input id="subscription-keep-count" name="keep_count" inputmode="numeric" pattern="[0-9]*" value="${form.keep_count}">
  <p class="muted">Older entries' files, and only those the service delivered, are removed from the destination.</p>
  </fieldset>
  <button type="submit" class="primary">Subscribe</button>
</form>
</section>`
  })
}

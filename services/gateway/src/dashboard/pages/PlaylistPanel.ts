// A resolved playlist on the Download tab: its entries with checkboxes, queued as one batch; or followed as a subscription.
import type { Media } from "@mds/shared/api/Responses"
import { formatDuration } from "../html/Format.ts"
import { html } from "../html/Html.ts"
import { csrfField } from "../html/Layout.ts"
import type { DownloadFormValues } from "../DownloadForm.ts"
import type { DestinationChoice } from "./DestinationField.ts"
import { chosenFormat, downloadOptions, formatSelect } from "./DownloadOptions.ts"
import { mediaHeading } from "./MediaPanel.ts"

export const playlistPanel = (options: {
  readonly action: string
  /** The Subscriptions tab, whose add form "Follow" fills in. */
  readonly subscriptionsHref: string
  readonly csrfToken: string
  readonly media: Media
  readonly url: string
  readonly values: DownloadFormValues
  /** The project's destinations, offered to deliver into. */
  readonly destinations: ReadonlyArray<DestinationChoice>
  /** The entries ticked when the form was sent (all of them on a fresh page). */
  readonly chosen: ReadonlySet<string> | null
  readonly refused: boolean
}) => {
  const { media } = options
  const entries = media.entries ?? []
  const total = media.entry_count ?? entries.length
  const follow = `${options.subscriptionsHref}?${new URLSearchParams({ url: options.url, format: chosenFormat(media.formats, options.values) })}#add-subscription-title`
  return html`<section class="resolved" aria-labelledby="media-title" data-media-id="${media.id}" data-playlist>
${mediaHeading(media, !options.refused)}
<p class="muted" data-field="entry-count">${total} entr${total === 1 ? "y" : "ies"}${entries.length < total ? ` (the first ${entries.length} are listed)` : ""}</p>
<form method="post" action="${options.action}" class="stack download-form">
  ${csrfField(options.csrfToken)}
  <input type="hidden" name="media_id" value="${media.id}">
  <input type="hidden" name="url" value="${options.url}">
  <fieldset class="entries">
  <legend>Entries to download</legend>
  <button type="button" class="link" data-toggle-entries hidden>Select none</button>
  <ol>${entries.map(
    (entry) =>
      html`<li><label class="check" for="entry-${entry.id}"><input type="checkbox" id="entry-${entry.id}" name="entries" value="${entry.id}"${
        options.chosen === null || options.chosen.has(entry.id) ? html` checked` : ""
      }> <span>${entry.title}</span>${entry.duration === null ? "" : html` <span class="muted">${formatDuration(entry.duration)}</span>`}</label></li>`
  )}</ol>
  </fieldset>
  ${formatSelect(media.formats, options.values)}
  ${downloadOptions(options.values, undefined, options.destinations)}
  <div class="buttons">
  <button type="submit" class="primary" data-wait-for-countdown>Download the chosen entries</button>
  ${entries.length < total ? html`<button type="submit" name="all" value="1" data-wait-for-countdown>Download all ${total}</button>` : ""}
  </div>
</form>
<p><a href="${follow}">Follow this playlist</a>: <span class="muted">check it on a schedule and download what is new (the Subscriptions tab's form, filled in).</span></p>
</section>`
}

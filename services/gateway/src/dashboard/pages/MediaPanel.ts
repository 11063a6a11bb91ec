// A resolved media on the Download tab: thumbnail, title and facts, then its formats, clip and presets, and Download.
import type { Media } from "@mds/shared/api/Responses"
import { formatDuration } from "../html/Format.ts"
import { type Html, html } from "../html/Html.ts"
import { csrfField } from "../html/Layout.ts"
import type { DownloadFormValues } from "../DownloadForm.ts"
import type { DestinationChoice } from "./DestinationField.ts"
import { downloadOptions, formatChoice } from "./DownloadOptions.ts"

/** The media's picture, decorative beside its title (so no alternative text); none when the media has none. */
export const thumbnail = (url: string, className = "thumb") =>
  url === "" ? "" : html`<img class="${className}" src="${url}" alt="" loading="lazy" referrerpolicy="no-referrer">`

/** `live_status` when the media is (or was, or will be) a live stream, with the announced start of an upcoming one. */
const liveStatusOf = (media: Media): string | null => {
  if (media.live_status === "not_live") return null
  const status = media.live_status.replaceAll("_", " ")
  return media.release_at === undefined ? status : `${status}, starts ${media.release_at}`
}

/** Who, how long, where from: only what the media says. */
export const mediaFacts = (media: Media): Html => {
  const author = media.author.name || media.author.username
  const duration = formatDuration(media.duration)
  const live = liveStatusOf(media)
  return html`<dl class="facts">
${author === "" ? "" : html`<div><dt>By</dt><dd>${author}</dd></div>`}
${duration === "" ? "" : html`<div><dt>Duration</dt><dd>${duration}</dd></div>`}
<div><dt>Platform</dt><dd>${media.platform}</dd></div>
${live === null ? "" : html`<div><dt>Live</dt><dd data-field="live-status">${live}</dd></div>`}
</dl>`
}

/**
 * The media's heading: focused when the page loads after Look up (`focus`), so a screen reader starts at the result;
 * not when a refusal above it takes the focus.
 */
export const mediaHeading = (media: Media, focus: boolean, level: "h2" | "h3" = "h3") =>
  html`<div class="media-head">${thumbnail(media.thumbnail)}<div>
<${level} id="media-title" tabindex="-1"${focus ? html` autofocus` : ""}>${media.title}</${level}>
${mediaFacts(media)}
</div></div>`

export const mediaPanel = (options: {
  readonly action: string
  readonly csrfToken: string
  readonly media: Media
  readonly url: string
  readonly values: DownloadFormValues
  /** The project's destinations, offered to deliver into. */
  readonly destinations: ReadonlyArray<DestinationChoice>
  /** Sent as the request's Idempotency-Key: a form submitted twice queues one job. */
  readonly requestToken: string
  /** A refusal is shown above: then the heading is not focused, the alert is. */
  readonly refused: boolean
}) => {
  const { media } = options
  return html`<section class="resolved" aria-labelledby="media-title" data-media-id="${media.id}">
${mediaHeading(media, !options.refused)}
<form method="post" action="${options.action}" class="stack download-form">
  ${csrfField(options.csrfToken)}
  <input type="hidden" name="media_id" value="${media.id}">
  <input type="hidden" name="url" value="${options.url}">
  <input type="hidden" name="request" value="${options.requestToken}">
  ${media.formats.length === 0 ? html`<p class="muted">This media lists no formats to download.</p>` : formatChoice(media.formats, options.values)}
  ${downloadOptions(options.values, media.subtitles, options.destinations)}
  <button type="submit" class="primary" data-wait-for-countdown>Download</button>
</form>
</section>`
}

// The Download tab: a link to look up, what it resolved to (a media or a playlist), refusals, and how to share links to it.
import type { Media } from "@mds/shared/api/Responses"
import { html } from "../html/Html.ts"
import { csrfField, page, projectHeader, type ProjectRef, type Viewer } from "../html/Layout.ts"
import type { Refusal } from "../ApiRefusal.ts"
import type { DownloadFormValues } from "../DownloadForm.ts"
import type { DestinationChoice } from "./DestinationField.ts"
import { mediaPanel } from "./MediaPanel.ts"
import { playlistPanel } from "./PlaylistPanel.ts"
import { refusalAlert } from "./RefusalAlert.ts"

export interface Looked {
  readonly media: Media
  readonly values: DownloadFormValues
  /** A playlist's entries ticked when the form was sent; null: all. */
  readonly chosen: ReadonlySet<string> | null
  readonly requestToken: string
}

/**
 * A bookmarklet for this project: it sends the page it runs on to the share route (never a key; the browser's own
 * session signs the user in there). `origin` is where browsers reach this dashboard.
 */
export const bookmarkletOf = (origin: string, projectId: string) =>
  `javascript:void(location.href='${origin}/dashboard/share?project=${projectId}&url='+encodeURIComponent(location.href))`

export const downloadPage = (options: {
  readonly viewer: Viewer
  readonly project: ProjectRef
  readonly url: string
  readonly playlist: boolean
  readonly refusal: Refusal | null
  readonly looked: Looked | null
  readonly origin: string
  /** The project's destinations, offered to deliver into. */
  readonly destinations: ReadonlyArray<DestinationChoice>
}) => {
  const base = `/dashboard/projects/${options.project.projectId}`
  const { looked } = options
  const refused = options.refusal !== null
  const resolved =
    looked === null
      ? ""
      : looked.media.type === "playlist"
        ? playlistPanel({
            action: `${base}/download/batch`,
            subscriptionsHref: `${base}/subscriptions`,
            csrfToken: options.viewer.csrfToken,
            media: looked.media,
            url: options.url,
            values: looked.values,
            chosen: looked.chosen,
            destinations: options.destinations,
            refused
          })
        : mediaPanel({
            action: `${base}/download/queue`,
            csrfToken: options.viewer.csrfToken,
            media: looked.media,
            url: options.url,
            values: looked.values,
            requestToken: looked.requestToken,
            destinations: options.destinations,
            refused
          })
  return page({
    title: `Download · ${options.project.name}`,
    viewer: options.viewer,
    body: html`${projectHeader(options.project, "download")}
<section aria-labelledby="download-title">
<h2 id="download-title">Download</h2>
<form method="post" action="${base}/download" class="stack lookup">
  ${csrfField(options.viewer.csrfToken)}
  <label for="media-url">Link to a video, a song, a playlist or a feed</label>
  <div class="url-row">
  <input id="media-url" name="url" type="url" inputmode="url" required maxlength="2048" value="${options.url}" placeholder="https://…" autocomplete="off" spellcheck="false"${
    looked === null && !refused ? html` autofocus` : ""
  } data-paste-on-focus>
  <button type="button" data-paste hidden>Paste</button>
  </div>
  <label class="check" for="media-playlist"><input type="checkbox" id="media-playlist" name="playlist" value="1"${
    options.playlist ? html` checked` : ""
  }> List its entries if it is a playlist, channel or feed</label>
  <button type="submit" class="primary">Look up</button>
</form>
${refusalAlert(options.refusal)}
${resolved}
</section>
<section aria-labelledby="capture-title" class="capture">
<h2 id="capture-title">Send links here from anywhere</h2>
<p><strong>Share menu:</strong> install this dashboard as an app (your browser's menu, <em>Install app</em> or <em>Add to
Home screen</em>). It then appears in your phone's or computer's share menu: sharing a link to it opens this tab
with the link filled in.</p>
<p><strong>Bookmarklet:</strong> drag <a class="bookmarklet" href="${bookmarkletOf(options.origin, options.project.projectId)}">Download with ${options.project.name}</a>
to your bookmarks bar. Clicked on a page with a video, it opens this tab with the page's link. It holds no key: you
stay signed in here as usual.</p>
</section>`
  })
}

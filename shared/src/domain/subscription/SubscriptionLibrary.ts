// Extension: a subscription's batch options: when the subscription delivers into a destination, its jobs' delivery
// order names the subscription and its show (LibraryShowOrder), so each entry is delivered as a numbered episode of
// one show with `tvshow.nfo` and `poster.jpg` in the subscription's folder.
import type { DownloadOptions } from "../job/DownloadOptions.ts"

export interface SubscriptionShow {
  readonly subscriptionId: string
  /** The playlist the check resolved: its media id and title, when known. */
  readonly playlistId: string
  readonly playlistTitle: string | null
  /** The subscription's URL: the show's title when the playlist's is unknown. */
  readonly url: string
}

/** The options a subscription's batch carries: its own, with the show added to a delivery order. */
export const subscriptionBatchOptions = (options: DownloadOptions | undefined, show: SubscriptionShow): DownloadOptions | undefined => {
  if (options?.delivery === undefined) return options
  const title = (show.playlistTitle ?? "").trim() === "" ? show.url : (show.playlistTitle ?? show.url)
  return {
    ...options,
    delivery: {
      ...options.delivery,
      library: { subscriptionId: show.subscriptionId, title: title.slice(0, 500), playlistId: show.playlistId.slice(0, 200) }
    }
  }
}

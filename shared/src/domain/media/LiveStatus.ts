// Extension: whether a media is a live stream and where it stands, in yt-dlp's words, and what a download of it does.
import { Schema } from "effect"

/**
 * yt-dlp's `live_status`: `is_upcoming` (a scheduled stream or premiere that has not begun), `is_live`, `was_live`
 * (a finished stream kept as a recording), `post_live` (just ended, its recording not yet processed), `not_live`.
 */
export const LiveStatus = Schema.Literals(["not_live", "is_live", "is_upcoming", "was_live", "post_live"])
export type LiveStatus = typeof LiveStatus.Type

/**
 * A media's live status: media resolved before the field existed (and media whose extractor did not say) are
 * `not_live`, which is what they were downloaded as.
 */
export const liveStatusOf = (media: { readonly liveStatus?: LiveStatus | undefined }): LiveStatus => media.liveStatus ?? "not_live"

/** A download of it waits (a scheduled job) until the stream begins. */
export const isUpcoming = (media: { readonly liveStatus?: LiveStatus | undefined }): boolean => liveStatusOf(media) === "is_upcoming"

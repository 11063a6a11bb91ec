// Extension: what a resolve's info says of a live stream: yt-dlp's live_status (or its older is_live/was_live flags)
// and, for an upcoming stream or premiere, when it is announced to begin.
import { LiveStatus } from "@mds/shared/domain/media/LiveStatus"
import { Schema } from "effect"
import type { YtDlpEntry } from "./YtDlpInfo.ts"

const isLiveStatus = Schema.is(LiveStatus)

export interface LiveDescription {
  readonly liveStatus?: LiveStatus
  readonly releaseAt?: number
}

/**
 * The entry's live status as yt-dlp says it; absent when it says nothing (read as not_live). A direct HLS or DASH
 * URL needs no reading of our own: yt-dlp's generic extractor (2026.10.26, `.tools/venv`) fetches the media playlist
 * and sets is_live when it has no #EXT-X-ENDLIST (no VOD duration), and for an MPD of type="dynamic".
 */
export const describeLive = (entry: YtDlpEntry): LiveDescription => {
  const said = entry.live_status
  const liveStatus: LiveStatus | undefined = isLiveStatus(said)
    ? said
    : entry.is_live === true
      ? "is_live"
      : entry.was_live === true
        ? "was_live"
        : undefined
  if (liveStatus === undefined) return {}
  const release = entry.release_timestamp
  return liveStatus === "is_upcoming" && typeof release === "number" && release > 0
    ? { liveStatus, releaseAt: Math.round(release * 1000) }
    : { liveStatus }
}

// Pure: a DASH format's fragment list cut down to the fragments a clip overlaps, for yt-dlp's DashSegmentsFD to fetch.
import type { ClipWindow } from "./trimHlsPlaylist.ts"

export interface TrimmedFragments {
  readonly fragments: ReadonlyArray<unknown>
  /** Where the first kept fragment starts in the media: the downloaded file's time 0. */
  readonly startSeconds: number
}

const durationOf = (fragment: unknown): number | null => {
  if (typeof fragment !== "object" || fragment === null) return null
  const duration = (fragment as Record<string, unknown>)["duration"]
  return typeof duration === "number" && Number.isFinite(duration) && duration >= 0 ? duration : null
}

/**
 * yt-dlp's MPD parser (yt_dlp/extractor/common.py, _parse_mpd_formats_and_subtitles) lists a representation's
 * initialization segment first, without a duration, then its media segments, each with one. The initialization
 * segment is always kept. Null when the list is not that (a generator yt-dlp writes as a string, segments of unknown
 * duration, several periods each with its own initialization) or no fragment overlaps the window.
 */
export const trimDashFragments = (fragments: unknown, window: ClipWindow): TrimmedFragments | null => {
  if (!Array.isArray(fragments) || fragments.length === 0) return null
  const init = durationOf(fragments[0]) === null ? [fragments[0]] : []
  const media = fragments.slice(init.length)
  const kept: Array<unknown> = []
  let clock = 0
  let startSeconds: number | null = null
  for (const fragment of media) {
    const duration = durationOf(fragment)
    if (duration === null) return null
    if (clock < window.end && clock + duration > window.start) {
      startSeconds ??= clock
      kept.push(fragment)
    }
    clock += duration
  }
  return startSeconds === null ? null : { fragments: [...init, ...kept], startSeconds }
}

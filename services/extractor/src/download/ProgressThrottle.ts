// Decides which progress readings become JobProgressed events: whole percents, only rising, about once a second.

export interface ProgressThrottleState {
  readonly reported: number
  readonly reportedAt: number
}

export const initialProgressThrottle: ProgressThrottleState = { reported: 0, reportedAt: Number.NEGATIVE_INFINITY }

/**
 * Downloading is most of the work but not all of it (merging and converting follow), so the download's
 * own percentage is scaled to at most 95; completion reports the rest.
 */
export const DOWNLOAD_SHARE = 0.95

export const jobPercent = (downloadPercent: number): number => Math.floor(Math.min(100, Math.max(0, downloadPercent)) * DOWNLOAD_SHARE)

/** The percent to report now, or null to stay quiet. */
export const nextProgressReport = (
  state: ProgressThrottleState,
  downloadPercent: number,
  now: number,
  minIntervalMs = 1000
): number | null => {
  const percent = jobPercent(downloadPercent)
  if (percent <= state.reported) return null
  if (now - state.reportedAt < minIntervalMs) return null
  return percent
}

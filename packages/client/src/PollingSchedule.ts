// The job polling rule of the API (every 2 to 5 s, never faster): start at 2 s, slow down while nothing changes.

export const MIN_POLL_MS = 2_000
export const MAX_POLL_MS = 5_000
const STEP_MS = 1_000

/** The wait before the next poll: back to 2 s when the job moved, else 1 s longer, within 2-5 s. */
export const nextPollDelay = (previousMs: number | null, changed: boolean): number => {
  if (previousMs === null || changed) return MIN_POLL_MS
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, previousMs + STEP_MS))
}

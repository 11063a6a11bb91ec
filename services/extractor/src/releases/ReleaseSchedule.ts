// When an extractor acts on the fleet's yt-dlp choice: a new choice once, a channel again every interval. Pure.
import type { AutoUpdate } from "./ReleaseConfig.ts"

export interface FollowState {
  /** Sequence of the choice last acted on (0: none chosen; -1: nothing acted on yet). */
  readonly appliedSeq: number
  /** When a channel was last looked up (ms). */
  readonly lookedUpAt: number
}

export const initialFollowState: FollowState = { appliedSeq: -1, lookedUpAt: 0 }

export interface FollowStep {
  /** What to install and check now, or null: nothing to do. */
  readonly apply: string | null
  readonly state: FollowState
}

/**
 * The operator's last choice wins; without one, YT_DLP_AUTO_UPDATE's channel (or nothing when off). An exact version
 * is acted on once per choice; a channel again whenever the interval has passed, to pick up new releases.
 */
export const nextFollowStep = (
  state: FollowState,
  chosen: { readonly seq: number; readonly choice: string } | null,
  autoUpdate: AutoUpdate,
  intervalMs: number,
  now: number
): FollowStep => {
  const seq = chosen?.seq ?? 0
  const choice = chosen?.choice ?? (autoUpdate === "off" ? null : autoUpdate)
  const channel = choice === "stable" || choice === "nightly"
  const due = seq !== state.appliedSeq || (channel && now - state.lookedUpAt >= intervalMs)
  if (!due) return { apply: null, state }
  return { apply: choice, state: { appliedSeq: seq, lookedUpAt: now } }
}

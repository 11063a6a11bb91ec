// Extension: when a delivery into a destination should have its media server refresh its libraries: at once, later (at
// most one call per destination per debounce window, so a burst of deliveries is one refresh), or not at all.
import type { DestinationState } from "./DestinationState.ts"

export type RefreshTiming =
  /** No media server, the destination is gone, or a refresh after this delivery already covered it. */
  | { readonly _tag: "Skip" }
  | { readonly _tag: "Call" }
  /** The last refresh was under the window ago: look again at `until`. */
  | { readonly _tag: "Wait"; readonly until: number }

export const refreshTiming = (state: DestinationState, deliveredAt: number, now: number, debounceMs: number): RefreshTiming => {
  if (state === null || state.removed || state.refresh === undefined) return { _tag: "Skip" }
  const last = state.lastRefresh
  if (last === undefined) return { _tag: "Call" }
  if (last.at > deliveredAt) return { _tag: "Skip" }
  const until = last.at + debounceMs
  return now < until ? { _tag: "Wait", until } : { _tag: "Call" }
}

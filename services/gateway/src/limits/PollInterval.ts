// When a job may be polled again: the spec asks clients for at least 2 s between two polls of one job.

export interface PollPolicy {
  /** The minimum interval the clients are told (0 disables the check). */
  readonly minIntervalMs: number
  /** Timers and networks jitter: a poll this much early still counts as on time. */
  readonly toleranceMs: number
}

export type PollVerdict = { readonly _tag: "OnTime" } | { readonly _tag: "TooFast"; readonly retryAfterSeconds: number }

/** `lastPollAt` is the previous answered poll of the same job by the same key, if any. */
export const judgePoll = (policy: PollPolicy, lastPollAt: number | undefined, now: number): PollVerdict => {
  if (policy.minIntervalMs <= 0 || lastPollAt === undefined || now < lastPollAt) return { _tag: "OnTime" }
  const elapsed = now - lastPollAt
  if (elapsed >= policy.minIntervalMs - policy.toleranceMs) return { _tag: "OnTime" }
  return { _tag: "TooFast", retryAfterSeconds: Math.max(1, Math.ceil((policy.minIntervalMs - elapsed) / 1000)) }
}

// Coalesces key uses in memory: any number of uses of a key between two flushes become one entry with the latest time.

export interface PendingUse {
  readonly keyId: string
  readonly projectId: string
  readonly at: number
}

export interface UsageLedger {
  /** Notes one use; O(1), no I/O: this runs on every authenticated request. */
  readonly touch: (use: PendingUse) => void
  /** Takes every pending entry and leaves the ledger empty. */
  readonly drain: () => ReadonlyArray<PendingUse>
  /** Puts entries back after a failed flush, without lowering a time noted since. */
  readonly restore: (uses: ReadonlyArray<PendingUse>) => void
}

export const makeUsageLedger = (): UsageLedger => {
  let pending = new Map<string, PendingUse>()
  const touch = (use: PendingUse) => {
    const current = pending.get(use.keyId)
    if (current === undefined || current.at < use.at) pending.set(use.keyId, use)
  }
  return {
    touch,
    drain: () => {
      const taken = [...pending.values()]
      pending = new Map()
      return taken
    },
    restore: (uses) => uses.forEach(touch)
  }
}

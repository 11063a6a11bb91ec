// Per-platform pacing limits as data: "youtube=2,generic=8" style lists read from configuration. Pure.
import { commaSeparatedEntries } from "../ExtractorConfig.ts"

export interface PlatformLimit {
  /** Runs of the platform at once across the fleet; null: no limit. */
  readonly concurrent: number | null
  /** Runs started in any 60 s across the fleet; null: no limit. */
  readonly startsPerMinute: number | null
}

export const NO_LIMIT: PlatformLimit = { concurrent: null, startsPerMinute: null }

/** "youtube=2, vimeo=1" -> {youtube: 2, vimeo: 1}; a string saying what is wrong for a malformed entry. */
export const parsePlatformCounts = (text: string): ReadonlyMap<string, number> | string => {
  const counts = new Map<string, number>()
  for (const entry of commaSeparatedEntries(text)) {
    const match = /^([a-z0-9_-]+)=([0-9]+)$/i.exec(entry)
    const count = match === null ? Number.NaN : Number(match[2])
    if (match === null || !Number.isSafeInteger(count) || count < 1) return `"${entry}" is not PLATFORM=N with N at least 1`
    counts.set((match[1] ?? "").toLowerCase(), count)
  }
  return counts
}

export const limitOf = (
  concurrent: ReadonlyMap<string, number>,
  startsPerMinute: ReadonlyMap<string, number>,
  platform: string
): PlatformLimit => ({
  concurrent: concurrent.get(platform) ?? null,
  startsPerMinute: startsPerMinute.get(platform) ?? null
})

// The platforms offered to clients: curated entries the installed yt-dlp can extract, plus the generic platform.
import { CURATED_PLATFORMS, GENERIC_PLATFORM, type PlatformEntry } from "./PlatformTable.ts"

export const availablePlatforms = (extractorNames: ReadonlyArray<string>): ReadonlyArray<PlatformEntry> => {
  const installed = new Set(extractorNames.map((name) => name.toLowerCase()))
  const offered = CURATED_PLATFORMS.filter((entry) =>
    entry.extractors.some((extractor) => installed.has(extractor.toLowerCase()))
  )
  return [...offered, GENERIC_PLATFORM]
}

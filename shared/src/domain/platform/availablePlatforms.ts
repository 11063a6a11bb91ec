// The platforms offered to clients: every working extractor of the installed yt-dlp except YouTube's, curated or derived.
import type { ExtractorInfo } from "./CatalogEvent.ts"
import { extractorToken, isBlockedExtractor, platformIdOf } from "./platformIdOf.ts"
import { CURATED_PLATFORMS, GENERIC_PLATFORM, GENERIC_PLATFORM_ID, type PlatformEntry } from "./PlatformTable.ts"

/** What the service delivers from any extractor: the media's video and audio (audio can always be extracted) and metadata. */
const DERIVED_CAPABILITIES: PlatformEntry["capabilities"] = ["video", "audio", "metadata"]

/**
 * Curated platforms first (table order, when one of their keys works), then one derived platform per other working
 * extractor (by id), then generic. A derived platform is named by yt-dlp's description, else its extractor name.
 */
export const availablePlatforms = (extractors: ReadonlyArray<ExtractorInfo>): ReadonlyArray<PlatformEntry> => {
  const working = extractors.filter((e) => e.working && !isBlockedExtractor(e.key))
  const installed = new Set(working.map((e) => extractorToken(e.key)))
  const curated = CURATED_PLATFORMS.filter((entry) => entry.extractors.some((key) => installed.has(extractorToken(key))))
  const taken = new Set<string>([...CURATED_PLATFORMS.map((entry) => entry.id), GENERIC_PLATFORM_ID])
  const derived: Array<PlatformEntry> = []
  for (const extractor of working) {
    const id = platformIdOf(extractor.key)
    if (taken.has(id)) continue
    taken.add(id)
    derived.push({
      id,
      name: extractor.description ?? extractor.name,
      capabilities: DERIVED_CAPABILITIES,
      hosts: [],
      extractors: [extractor.key]
    })
  }
  derived.sort((a, b) => a.id.localeCompare(b.id))
  return [...curated, ...derived, GENERIC_PLATFORM]
}

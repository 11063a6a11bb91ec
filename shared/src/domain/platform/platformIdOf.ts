// Maps the yt-dlp extractor that handled a media (its extractor_key) to our platform id, or says it is not supported.
import { BLOCKED_EXTRACTOR_PREFIX, CURATED_PLATFORMS, GENERIC_PLATFORM_ID } from "./PlatformTable.ts"

const curatedByKey = new Map(CURATED_PLATFORMS.flatMap((entry) => entry.extractors.map((key) => [key.toLowerCase(), entry.id] as const)))

export const isBlockedExtractor = (extractorKey: string): boolean => extractorKey.toLowerCase().startsWith(BLOCKED_EXTRACTOR_PREFIX)

/**
 * Curated keys map to their platform, yt-dlp's generic extractor to `generic`, every other key to its lowercased
 * letters and digits (keys are unique that way too): ids stay usable as NATS subject tokens.
 */
export const platformIdOf = (extractorKey: string): string => {
  const key = extractorKey.toLowerCase()
  if (key === "generic") return GENERIC_PLATFORM_ID
  return curatedByKey.get(key) ?? (key.replace(/[^a-z0-9]/g, "") || GENERIC_PLATFORM_ID)
}

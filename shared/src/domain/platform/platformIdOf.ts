// Maps the yt-dlp extractor that handled a media (its extractor_key) to our platform id, or says it is not supported.
import { BLOCKED_EXTRACTOR_PREFIX, CURATED_PLATFORMS, GENERIC_PLATFORM_ID } from "./PlatformTable.ts"

/**
 * Keys ("TwitchVod", "ArchiveOrg") and names ("twitch:vod", "archive.org", what `--list-extractors` prints) compare
 * equal once lowercased without punctuation.
 */
export const extractorToken = (keyOrName: string): string => keyOrName.toLowerCase().replace(/[^a-z0-9]/g, "")

const curatedByKey = new Map(CURATED_PLATFORMS.flatMap((entry) => entry.extractors.map((key) => [extractorToken(key), entry.id] as const)))

export const isBlockedExtractor = (extractorKey: string): boolean => extractorKey.toLowerCase().startsWith(BLOCKED_EXTRACTOR_PREFIX)

/**
 * Curated keys map to their platform, yt-dlp's generic extractor to `generic`, every other key to its lowercased
 * letters and digits (keys are unique that way too): ids stay usable as NATS subject tokens.
 */
export const platformIdOf = (extractorKey: string): string => {
  const token = extractorToken(extractorKey)
  if (token === "generic") return GENERIC_PLATFORM_ID
  return curatedByKey.get(token) ?? (token || GENERIC_PLATFORM_ID)
}

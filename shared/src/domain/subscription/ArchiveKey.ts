// Extension: how a project's download archive names an entry, as yt-dlp's --download-archive does ("<extractor> <id>").
/**
 * The extractor's key lower-cased and the entry's id there (`youtube dQw4w9WgXcQ`, as yt-dlp writes the line); an entry
 * whose playlist names no extractor and id (a plain feed item without a guid) falls back to its URL (`url <url>`). Two
 * subscriptions of one project that list the same video under the same extractor name it the same way.
 */
export const archiveKeyOf = (entry: { readonly extractor: string | null; readonly id: string | null; readonly url: string }): string =>
  entry.extractor !== null && entry.extractor !== "" && entry.id !== null && entry.id !== ""
    ? `${entry.extractor.toLowerCase()} ${entry.id}`
    : `url ${entry.url}`

/**
 * The key checks wrote before playlist entries carried their extractor's id: the playlist's platform and our entry id
 * (derived from the URL). Subscriptions and archives of that time know their entries by it, so an entry seen or queued
 * under it stays seen and queued: a check asks for both keys, and records only the new one.
 */
export const formerArchiveKeyOf = (platform: string, entryId: string): string => `${platform.toLowerCase()} ${entryId}`

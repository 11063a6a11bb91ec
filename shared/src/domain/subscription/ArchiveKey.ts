// Extension: how a project's download archive names an entry, as yt-dlp's --download-archive does ("<extractor> <id>").
/**
 * The extractor's key lower-cased and the entry's id; an entry without an id (a plain feed item) falls back to its
 * URL. Two subscriptions of one project that list the same video under the same extractor name it the same way.
 */
export const archiveKeyOf = (entry: { readonly extractor: string | null; readonly id: string | null; readonly url: string }): string =>
  entry.extractor !== null && entry.id !== null && entry.id !== "" ? `${entry.extractor.toLowerCase()} ${entry.id}` : `url ${entry.url}`

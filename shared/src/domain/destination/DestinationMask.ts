// Extension: what may be shown of an access key id: at most its last 4 characters, fewer for a short one, so a mask
// never gives away most of a key.
export const MASK = "****"

/** The characters kept of an access key id: 4 of one of 16 or more, a quarter of a shorter one (none under 4). */
export const accessKeyHint = (accessKeyId: string): string => {
  const kept = Math.min(4, Math.floor(accessKeyId.length / 4))
  return kept === 0 ? "" : accessKeyId.slice(-kept)
}

/** The hint as an answer shows it: `****ABCD`. */
export const maskedAccessKey = (hint: string): string => `${MASK}${hint}`

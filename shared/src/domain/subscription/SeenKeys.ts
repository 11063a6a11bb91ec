// Extension: the archive keys a subscription has seen, kept bounded: short digests, the oldest let go first, never one the
// feed lists now.

/**
 * The most keys a subscription remembers: more than a feed lists at once (PLAYLIST_MAX_ENTRIES, 500 by default), so
 * that what is let go is only what the feed stopped listing long ago.
 */
export const SEEN_LIMIT = 2_000

/**
 * A 53-bit digest of an archive key (cyrb53), in base 36: what the state keeps of a key, since a key may be a URL of
 * 2,048 characters. Two keys of one subscription sharing a digest (about 1 in 10^9 among 2,000) would make the newer
 * one read as seen.
 */
export const seenDigest = (key: string): string => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}

/**
 * The digests in the order they were last seen (a JavaScript Set keeps insertion order): `seen` added at the newest end,
 * `refreshed` moved there, then the oldest let go until at most SEEN_LIMIT remain.
 */
export const withSeen = (
  seen: ReadonlySet<string>,
  added: ReadonlyArray<string>,
  refreshed: ReadonlyArray<string> = []
): ReadonlySet<string> => {
  if (added.length === 0 && refreshed.length === 0) return seen
  const next = new Set(seen)
  for (const digest of refreshed) {
    next.delete(digest)
    next.add(digest)
  }
  for (const key of added) next.add(seenDigest(key))
  if (next.size > SEEN_LIMIT) {
    let excess = next.size - SEEN_LIMIT
    for (const digest of next) {
      if (excess-- <= 0) break
      next.delete(digest)
    }
  }
  return next
}

/**
 * Of the keys listed now, the digests the next `adding` new keys would let go: moved to the newest end instead, so a
 * key the feed still lists is never forgotten (and found new again).
 */
export const listedAtRisk = (seen: ReadonlySet<string>, adding: number, listed: ReadonlySet<string>): ReadonlyArray<string> => {
  const excess = seen.size + adding - SEEN_LIMIT
  if (excess <= 0) return []
  const atRisk: Array<string> = []
  let letGo = 0
  for (const digest of seen) {
    if (letGo >= excess) break
    if (listed.has(digest)) atRisk.push(digest)
    else letGo++
  }
  return atRisk
}

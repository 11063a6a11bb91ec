// Remembers a set of subjects in fixed space: "never added" answers are always right, "maybe added" ones sometimes wrong.
/**
 * The batched job rebuild adds each subject it drops from memory; a subject the filter has never seen needs no read
 * of the store, so a rebuild of millions of jobs reads back only (about) the documents it actually dropped, not
 * every job met after memory first filled up. A wrong "maybe" costs one read that finds nothing.
 */
export interface SubjectBloomFilter {
  readonly add: (subject: string) => void
  readonly mightContain: (subject: string) => boolean
}

/** FNV-1a over the subject's UTF-16 code units, from two different offsets: the two hashes of double hashing. */
const hash = (subject: string, offset: number) => {
  let h = offset
  for (let i = 0; i < subject.length; i++) h = Math.imul(h ^ subject.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** `bits` is rounded up to a power of two; 2^24 bits (2 MiB) with 4 hashes is wrong ~2% of the time at 2 million subjects. */
export const makeSubjectBloomFilter = (bits: number, hashes: number): SubjectBloomFilter => {
  const size = 2 ** Math.ceil(Math.log2(Math.max(32, bits)))
  const mask = size - 1
  const words = new Uint32Array(size / 32)
  const positions = (subject: string, visit: (bit: number) => boolean) => {
    const h1 = hash(subject, 0x811c9dc5)
    // Odd, so the probes of one subject never repeat a bit within a power-of-two table.
    const h2 = hash(subject, 0x6c62272e) | 1
    for (let i = 0; i < hashes; i++) if (!visit((h1 + Math.imul(i, h2)) & mask)) return false
    return true
  }
  return {
    add: (subject) =>
      void positions(subject, (bit) => {
        words[bit >>> 5]! |= 1 << (bit & 31)
        return true
      }),
    mightContain: (subject) => positions(subject, (bit) => (words[bit >>> 5]! & (1 << (bit & 31))) !== 0)
  }
}

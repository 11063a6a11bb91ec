// Random bytes handed out from a pooled buffer: one randomBytes call (a syscall and a buffer) per 4 KB instead of
// one per id; ids and request ids are made on every request, where the per-call cost showed in profiles.
import { randomBytes } from "node:crypto"

const POOL_BYTES = 4096

let pool = randomBytes(POOL_BYTES)
let offset = 0

/** `length` (≤ 4096) fresh random bytes; each byte is handed out once (a spent pool is replaced, never refilled). */
export const takeRandomBytes = (length: number): Buffer => {
  if (length > POOL_BYTES) return randomBytes(length)
  if (offset + length > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  const bytes = pool.subarray(offset, offset + length)
  offset += length
  return bytes
}

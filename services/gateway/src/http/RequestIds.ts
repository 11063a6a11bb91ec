// Request ids (`req_` + 24 hex digits, 96 random bits) drawn from a pooled buffer of random bytes: one
// randomBytes call per 340 requests instead of one per request (which was 3% of a job read's CPU).
import { randomBytes } from "node:crypto"

const ID_BYTES = 12
const POOL_BYTES = ID_BYTES * 340

let pool = randomBytes(POOL_BYTES)
let offset = 0

export const newRequestId = (): string => {
  if (offset + ID_BYTES > POOL_BYTES) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  const id = `req_${pool.toString("hex", offset, offset + ID_BYTES)}`
  offset += ID_BYTES
  return id
}

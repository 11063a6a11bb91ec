// API key secrets: generation, the keyed hash that is stored instead of the secret, and the key id derived from it.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { KeyEnvironment } from "../domain/account/AccountEvent.ts"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const SECRET_BODY_LENGTH = 40 // ~238 bits of entropy
const DISPLAY_PREFIX_LENGTH = 4

export const SECRET_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{40}$/

export const generateSecret = (environment: KeyEnvironment): string => {
  // Rejection sampling keeps every base62 character equally likely.
  let body = ""
  while (body.length < SECRET_BODY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && body.length < SECRET_BODY_LENGTH) body += BASE62[byte % 62]
    }
  }
  return `svc_${environment}_${body}`
}

/** HMAC-SHA256 with a server-side pepper: fast, and useless to anyone holding the stored hashes but not the pepper. */
export const hashSecret = (pepper: string, secret: string): string => createHmac("sha256", pepper).update(secret).digest("hex")

/** The public key id: derived from the hash, so a presented secret leads straight to its key's subject. */
export const keyIdFromHash = (hash: string): string => `key_${hash.slice(0, 24)}`

/** What a list may show of a key: its environment prefix and a few characters. */
export const displayPrefix = (secret: string): string => {
  const body = secret.replace(/^svc_(live|test)_/, "")
  return `${secret.slice(0, secret.length - body.length)}${body.slice(0, DISPLAY_PREFIX_LENGTH)}`
}

export const hashesEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex")
  const right = Buffer.from(b, "hex")
  return left.length === right.length && timingSafeEqual(left, right)
}

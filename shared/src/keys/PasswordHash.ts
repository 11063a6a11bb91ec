// Dashboard passwords: scrypt with a random salt, the parameters recorded in the hash string, verified in constant time.
import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from "node:crypto"

/**
 * OWASP's scrypt setting with 32 MiB per hash (N=2^15, r=8, p=3). The parameters travel in the string, so they can be
 * raised later without invalidating existing hashes.
 */
export const DEFAULT_SCRYPT = { N: 2 ** 15, r: 8, p: 3 } as const
const SALT_BYTES = 16
const KEY_BYTES = 32
/** Refuses parameters that would make a stored (or forged) hash a memory or CPU bomb. */
const MAX_N = 2 ** 20
const MAX_RP = 64

export interface ScryptParams {
  readonly N: number
  readonly r: number
  readonly p: number
}

const derive = (password: string, salt: Buffer, params: ScryptParams, length: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 }
    scrypt(password.normalize("NFC"), salt, length, options, (error, key) => (error === null ? resolve(key) : reject(error)))
  })

/** `scrypt$N=32768,r=8,p=3$<salt base64>$<key base64>` */
export const hashPassword = async (password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> => {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, params, KEY_BYTES)
  return `scrypt$N=${params.N},r=${params.r},p=${params.p}$${salt.toString("base64")}$${key.toString("base64")}`
}

const HASH_PATTERN = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/

export const parsePasswordHash = (stored: string) => {
  const match = HASH_PATTERN.exec(stored)
  if (match === null) return null
  const [, n, r, p, salt, key] = match
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  const powerOfTwo = params.N > 1 && (params.N & (params.N - 1)) === 0
  if (!powerOfTwo || params.N > MAX_N || params.r < 1 || params.r > MAX_RP || params.p < 1 || params.p > MAX_RP) return null
  return { params, salt: Buffer.from(salt ?? "", "base64"), key: Buffer.from(key ?? "", "base64") }
}

/** True only when the password derives the stored key; a malformed hash never verifies. */
export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const parsed = parsePasswordHash(stored)
  if (parsed === null || parsed.key.length === 0) return false
  const candidate = await derive(password, parsed.salt, parsed.params, parsed.key.length)
  return timingSafeEqual(candidate, parsed.key)
}

/**
 * Verifying against this when no user has the email costs the same time as a real check, so the answer time does not
 * tell which emails have accounts.
 */
export const DECOY_PASSWORD_HASH =
  `scrypt$N=${DEFAULT_SCRYPT.N},r=${DEFAULT_SCRYPT.r},p=${DEFAULT_SCRYPT.p}$` +
  `${Buffer.alloc(SALT_BYTES).toString("base64")}$${Buffer.alloc(KEY_BYTES).toString("base64")}`

export const MIN_PASSWORD_LENGTH = 12

const PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"

/** 20 characters from a 57-letter alphabet without look-alikes (~116 bits), for `user create` without a password. */
export const generatePassword = (): string => {
  let out = ""
  while (out.length < 20) {
    for (const byte of randomBytes(32)) {
      // 57 * 4 = 228: rejection sampling keeps every letter equally likely.
      if (byte < 228 && out.length < 20) out += PASSWORD_ALPHABET[byte % 57]
    }
  }
  return out
}

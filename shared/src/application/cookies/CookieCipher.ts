// AES-256-GCM for stored cookie files: a fresh IV per write, the project and platform bound in as associated data.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

const IV_BYTES = 12
const TAG_BYTES = 16

/** `key` is 32 bytes. The result is iv | tag | ciphertext; a blob moved to another project or platform fails to open. */
export const sealCookies = (key: Buffer, slot: string, plaintext: string): Buffer => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(slot))
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

/** null when the blob was altered, sealed with another key, or for another slot. */
export const openCookies = (key: Buffer, slot: string, sealed: Uint8Array): string | null => {
  const blob = Buffer.from(sealed)
  if (blob.length < IV_BYTES + TAG_BYTES) return null
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, blob.subarray(0, IV_BYTES))
    decipher.setAAD(Buffer.from(slot))
    decipher.setAuthTag(blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8")
  } catch {
    return null
  }
}

/** The slot a blob belongs to, bound into its authentication tag. */
export const cookieSlot = (projectId: string, platform: string) => `${projectId}/${platform}`

// Identifiers: a type prefix and 24 lowercase base32 characters (120 random bits); safe as NATS subject tokens.
import { createHash } from "node:crypto"
import { Schema } from "effect"
import { takeRandomBytes } from "./RandomPool.ts"

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
const BODY_LENGTH = 24

export type IdPrefix = "job" | "med" | "prj" | "key" | "bat" | "sub" | "dst"

const randomBody = (): string => {
  const bytes = takeRandomBytes(BODY_LENGTH)
  let out = ""
  for (const byte of bytes) out += ALPHABET[byte & 31]
  return out
}

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBody()}`

/** The same id for the same seed (e.g. a batch entry's job, so that feeding it twice queues one job). */
export const derivedId = (prefix: IdPrefix, seed: string): string => {
  const digest = createHash("sha256").update(seed).digest()
  let out = ""
  for (let i = 0; i < BODY_LENGTH; i++) out += ALPHABET[(digest[i] ?? 0) & 31]
  return `${prefix}_${out}`
}

/** `u`: Effect puts a pattern into the OpenAPI document only with it (a path parameter then shows its shape). */
const idPattern = (prefix: IdPrefix) => new RegExp(`^${prefix}_[a-z2-7]{${BODY_LENGTH}}$`, "u")

/** Schemas for ids arriving from clients: anything else never reaches a subject name. */
export const JobId = Schema.String.check(Schema.isPattern(idPattern("job")))
export const BatchId = Schema.String.check(Schema.isPattern(idPattern("bat")))
export const SubscriptionId = Schema.String.check(Schema.isPattern(idPattern("sub")))
export const DestinationId = Schema.String.check(Schema.isPattern(idPattern("dst")))
export const MediaId = Schema.String.check(Schema.isPattern(idPattern("med")))
export const ProjectId = Schema.String.check(Schema.isPattern(idPattern("prj")))
export const KeyId = Schema.String.check(Schema.isPattern(/^key_[a-f0-9]{24}$/))
/**
 * A webhook delivery's id: derived from its event (a hash, so hex), stable over the event's attempts. A path parameter
 * of the API: the `u` flag lets the OpenAPI document carry its pattern (Effect exports a pattern only with it), so
 * clients and fuzzers see which ids are well-formed.
 */
export const DeliveryId = Schema.String.check(Schema.isPattern(/^dlv_[0-9a-f]{24}$/u))

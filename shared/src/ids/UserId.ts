// Dashboard user ids: derived from the normalised email, so one email can only ever be one user (one subject).
import { createHash } from "node:crypto"
import { Schema } from "effect"

/** Emails compare case-insensitively and without surrounding blanks. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** A plausible address: something@something, no blanks, at most 254 characters. Normalise before checking. */
export const Email = Schema.String.check(
  Schema.isMaxLength(254, { message: "must be at most 254 characters" }),
  Schema.isPattern(/^[^\s@]+@[^\s@]+$/, { message: "must be an email address" })
)

export const UserId = Schema.String.check(Schema.isPattern(/^usr_[a-f0-9]{24}$/))

/** Not a secret (emails are not), only a subject-safe, fixed-length token. */
export const userIdFromEmail = (email: string): string =>
  `usr_${createHash("sha256").update(normalizeEmail(email)).digest("hex").slice(0, 24)}`

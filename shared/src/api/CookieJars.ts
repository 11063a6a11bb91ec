// Extension: what the API shows of a project's stored cookie file (metadata only, never a cookie).
import { Schema } from "effect"
import type { CookieJarInfo } from "../domain/cookies/CookieJars.ts"

export const CookieJar = Schema.Struct({
  platform: Schema.String,
  domains: Schema.Array(Schema.String),
  cookie_count: Schema.Int,
  /** The earliest expiry among the cookies; null if all are session cookies. */
  expires_at: Schema.NullOr(Schema.String),
  updated_at: Schema.String,
  /** uploaded: by a member; rotated: a run stored the cookies the platform sent back. */
  change: Schema.Literals(["uploaded", "rotated"])
}).annotate({ identifier: "CookieJar" })
export type CookieJar = typeof CookieJar.Type

export const toCookieJar = (info: CookieJarInfo): CookieJar => ({
  platform: info.platform,
  domains: info.domains,
  cookie_count: info.cookieCount,
  expires_at: info.expiresAt === null ? null : new Date(info.expiresAt).toISOString(),
  updated_at: new Date(info.updatedAt).toISOString(),
  change: info.change
})

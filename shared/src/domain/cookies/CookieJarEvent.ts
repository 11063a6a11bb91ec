// Facts about a project's stored cookie files (extension), one subject per project and platform:
// mds.cookies.<projectId>.<platform>. Metadata only: the cookies themselves live encrypted in the cookie vault.
import { Schema } from "effect"

const CookieFileFacts = {
  projectId: Schema.String,
  platform: Schema.String,
  domains: Schema.Array(Schema.String),
  cookieCount: Schema.Int,
  /** Earliest expiry among the cookies (ms), null if all are session cookies. */
  expiresAt: Schema.NullOr(Schema.Number)
}

/** Uploaded by a member of the project (API or dashboard). */
export const CookiesUploaded = Schema.TaggedStruct("CookiesUploaded", { v: Schema.Literal(1), ...CookieFileFacts, at: Schema.Number })
/** A run wrote back cookies the platform rotated; they replace the stored ones. */
export const CookiesRotated = Schema.TaggedStruct("CookiesRotated", { v: Schema.Literal(1), ...CookieFileFacts, at: Schema.Number })
export const CookiesRemoved = Schema.TaggedStruct("CookiesRemoved", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  platform: Schema.String,
  at: Schema.Number
})

export const CookieJarEvent = Schema.Union([CookiesUploaded, CookiesRotated, CookiesRemoved])
export type CookieJarEvent = typeof CookieJarEvent.Type

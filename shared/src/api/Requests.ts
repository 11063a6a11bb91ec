// The /v1 request bodies: the gateway decodes with these schemas and the OpenAPI document is generated from them.
import { Schema } from "effect"

export const MAX_URL_LENGTH = 2048

/**
 * http(s)://[user:password@]host[:port][/path?query#fragment]; the gateway parses it again (WHATWG URL), so this
 * only spells out for the document (and its fuzzers) what a usable URL looks like. It lets through what parses but
 * names a private address in an odd way (credentials, an IPv4-mapped address with a dotted tail, IDN and full-width
 * spellings, a tab or a backslash in the host): the egress guard answers those 422 url_not_allowed, not 400 here.
 */
const PORT = "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"
const H16 = "[0-9A-Fa-f]{1,4}"
/** RFC 4291 text forms (full and compressed), as a URL writes them in brackets. */
const IPV6 = [
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  `(?:${H16}:){1,5}(?::${H16}){1,2}`,
  `(?:${H16}:){1,4}(?::${H16}){1,3}`,
  `(?:${H16}:){1,3}(?::${H16}){1,4}`,
  `(?:${H16}:){1,2}(?::${H16}){1,5}`,
  `${H16}:(?::${H16}){1,6}`,
  `:(?:(?::${H16}){1,7}|:)`
].join("|")
/** An IPv6 address ending in a dotted IPv4 address (`::ffff:127.0.0.1`). */
const IPV6_DOTTED = "[0-9A-Fa-f:]*:(?:[0-9]{1,3}\\.){3}[0-9]{1,3}"
/** Any character a WHATWG parser keeps or drops in a host (tabs are removed), but no space, delimiter or bracket. */
const HOST = `(?:(?:[^\\s/?#@\\[\\]:\\\\]|\\t)+|\\[(?:${IPV6}|${IPV6_DOTTED})\\])`
const USERINFO = "(?:[^\\s/?#@]*@)?"
const HTTP_URL_PATTERN = new RegExp(`^[Hh][Tt][Tt][Pp][Ss]?://${USERINFO}${HOST}(?::${PORT})?(?:[/?#\\\\]\\S*)?$`, "u")

export const HttpUrlString = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` }),
  Schema.isPattern(HTTP_URL_PATTERN, { message: "must be an absolute http or https URL" })
).annotate({ description: "An absolute http or https URL (one with user:password is refused: url_not_allowed)." })

export const ResolveRequest = Schema.Struct({
  url: HttpUrlString
}).annotate({ identifier: "ResolveRequest", description: "The public page or file URL of the media." })
export type ResolveRequest = typeof ResolveRequest.Type

const FormatField = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })).annotate({
  description: "video_best, video_<height>p, audio_best, audio_m4a or audio_mp3 (with media_id: one of its formats)."
})

export const DownloadByMediaId = Schema.Struct({
  format: FormatField,
  media_id: Schema.String.annotate({ description: "data.id of a resolve response." })
}).annotate({ identifier: "DownloadByMediaId" })

export const DownloadByUrl = Schema.Struct({
  format: FormatField,
  url: HttpUrlString
}).annotate({ identifier: "DownloadByUrl" })

/** Exactly one of media_id and url (a body with both matches both branches, which oneOf refuses; so does the gateway). */
export const DownloadRequest = Schema.Union([DownloadByMediaId, DownloadByUrl], { mode: "oneOf" }).annotate({
  identifier: "DownloadRequest",
  description: "format plus exactly one of media_id and url."
})
export type DownloadRequest = typeof DownloadRequest.Type

/** Extension: a platform id as GET /platforms lists it. */
export const CookiePlatform = Schema.String.check(Schema.isPattern(/^[a-z0-9_-]{1,64}$/u, { message: "must be a platform id from GET /platforms" }))

/** Extension: a Netscape cookies.txt for one platform, replacing the project's previous one. */
export const CookiesUpload = Schema.Struct({
  platform: CookiePlatform.annotate({ description: "The platform id (GET /platforms) the cookies are for." }),
  cookies_txt: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })).annotate({
    description: "The file in Netscape format (7 tab-separated fields per line), as browser export add-ons write it."
  })
}).annotate({ identifier: "CookiesUpload" })
export type CookiesUpload = typeof CookiesUpload.Type

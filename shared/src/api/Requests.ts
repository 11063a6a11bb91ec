// The /v1 request bodies: the gateway decodes with these schemas and the OpenAPI document is generated from them.
import { Schema } from "effect"
import { LanguageCode } from "../domain/media/SubtitleTrack.ts"
import { COOKIE_PLATFORM_IDS } from "../domain/platform/cookiePlatform.ts"

export const MAX_URL_LENGTH = 2048
/** The longest position a clip section may name: a day, beyond any media this service downloads. */
export const MAX_SECTION_SECONDS = 86_400

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

/** Extension: answer a playlist URL with a page of its entries. */
export const PlaylistPage = Schema.Struct({
  offset: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))).annotate({ description: "First entry (default 0)." }),
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))).annotate({
    description: "Entries per page, 1-100 (default 50)."
  })
}).annotate({ identifier: "PlaylistPage" })

export const ResolveRequest = Schema.Struct({
  url: HttpUrlString,
  playlist: Schema.optionalKey(PlaylistPage).annotate({
    description:
      "Extension: with it, a playlist URL (a feed, a page of links) answers type playlist with a page of its " +
      "flat entries; without it, as before."
  })
}).annotate({ identifier: "ResolveRequest", description: "The public page or file URL of the media." })
export type ResolveRequest = typeof ResolveRequest.Type

const FormatField = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })).annotate({
  description: "video_best, video_<height>p, audio_best, audio_m4a or audio_mp3 (with media_id: one of its formats)."
})

const Seconds = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number of seconds" }),
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" }),
  Schema.isLessThanOrEqualTo(MAX_SECTION_SECONDS, { message: `must be at most ${MAX_SECTION_SECONDS}` })
)

/** Extension: a clip of the media, in seconds from its start. */
export const SectionRequest = Schema.Struct({
  start: Seconds.annotate({ description: "Start of the clip in seconds (decimals allowed)." }),
  end: Seconds.annotate({
    description: "End of the clip in seconds; greater than start (else 422 invalid_options), at most the media's duration."
  }),
  precise: Schema.optionalKey(Schema.Boolean).annotate({
    description:
      "true: re-encode at the cuts, so the clip lasts end - start within half a second; false (default): " +
      "cut at the nearest keyframes without re-encoding (faster, less exact)."
  })
}).annotate({
  identifier: "Section",
  description: "Extension: download only this part of the media."
})
export type SectionRequest = typeof SectionRequest.Type

/** The opt-in fields of a download (extensions); a client that sends none of them gets today's download. A batch takes them too. */
export const downloadExtensions = {
  section: Schema.optionalKey(SectionRequest),
  video_codec: Schema.optionalKey(Schema.Literals(["h264", "vp9", "av1", "any"])).annotate({
    description:
      "Extension, video formats: h264 plays everywhere; vp9 and av1 are smaller; any takes what the " +
      "platform serves best. The platform's own stream of that codec is preferred, else the video is converted."
  }),
  container: Schema.optionalKey(Schema.Literals(["mp4", "webm", "mkv"])).annotate({
    description:
      "Extension, video formats: the file's container (default mp4). webm holds vp9 or av1 only (vp9 if " + "video_codec is not given)."
  }),
  audio_bitrate: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 32, maximum: 320 }, { message: "must be an integer from 32 to 320" }))
  ).annotate({ description: "Extension, audio_mp3 and audio_m4a: kbit/s of the converted audio (default 192 for mp3)." }),
  mute: Schema.optionalKey(Schema.Boolean).annotate({ description: "Extension, video formats: video without sound." }),
  embed_metadata: Schema.optionalKey(Schema.Boolean).annotate({
    description: "Extension: write title, artist, date and description into the file's tags."
  }),
  embed_thumbnail: Schema.optionalKey(Schema.Boolean).annotate({
    description: "Extension: embed the thumbnail as cover art (mp4, mkv, audio_mp3, audio_m4a; not webm or audio_best)."
  }),
  subtitles: Schema.optionalKey(Schema.Array(LanguageCode).check(Schema.isMinLength(1), Schema.isMaxLength(10))).annotate({
    description:
      "Extension, video formats: subtitle languages (from resolve's subtitles) to embed: mov_text in mp4, " + "natively in mkv and webm."
  })
}

export const DownloadByMediaId = Schema.Struct({
  format: FormatField,
  media_id: Schema.String.annotate({ description: "data.id of a resolve response." }),
  ...downloadExtensions
}).annotate({ identifier: "DownloadByMediaId" })

export const DownloadByUrl = Schema.Struct({
  format: FormatField,
  url: HttpUrlString,
  ...downloadExtensions
}).annotate({ identifier: "DownloadByUrl" })

/** Exactly one of media_id and url (a body with both matches both branches, which oneOf refuses; so does the gateway). */
export const DownloadRequest = Schema.Union([DownloadByMediaId, DownloadByUrl], { mode: "oneOf" }).annotate({
  identifier: "DownloadRequest",
  description: "format plus exactly one of media_id and url."
})
export type DownloadRequest = typeof DownloadRequest.Type

/** The opt-in fields of a download, as a client sends them beside format and media_id/url. */
export type DownloadExtensions = Omit<typeof DownloadByUrl.Type, "format" | "url">

/** A request with a format and the opt-in fields: a download or a batch. */
export type FormatWithExtensions = DownloadExtensions & { readonly format: string }

/** Extension: a platform id as GET /platforms lists it. */
export const CookiePlatform = Schema.String.check(
  Schema.isPattern(/^[a-z0-9_-]{1,64}$/u, { message: "must be a platform id from GET /platforms" })
)

/**
 * Extension: a platform id cookies can be kept under: one a URL's host is classified as (cookiePlatform.ts), the id
 * every run looks its cookies up by. GET /platforms marks these with `cookies: true`.
 */
export const CookieUploadPlatform = Schema.Literals(COOKIE_PLATFORM_IDS as readonly [string, ...Array<string>]).annotate({
  // A closed list, so the OpenAPI document names it (an enum) and generated clients send nothing else.
  message:
    "takes cookies only under a platform GET /platforms lists with cookies: true (the platform of the URL's host; generic for any host without a curated platform)"
})

/** Extension: a Netscape cookies.txt for one platform, replacing the project's previous one. */
export const CookiesUpload = Schema.Struct({
  platform: CookieUploadPlatform.annotate({
    description: `The platform the cookies are for: the platform of the URL's host, one of ${COOKIE_PLATFORM_IDS.join(", ")} (GET /platforms lists them with cookies: true; a site without a curated platform is generic).`
  }),
  cookies_txt: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })).annotate({
    description: "The file in Netscape format (7 tab-separated fields per line), as browser export add-ons write it."
  })
}).annotate({ identifier: "CookiesUpload" })
export type CookiesUpload = typeof CookiesUpload.Type

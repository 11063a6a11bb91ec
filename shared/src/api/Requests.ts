// The /v1 request bodies: the gateway decodes with these schemas and the OpenAPI document is generated from them.
import { Schema } from "effect"
import { MAX_TEMPLATE_LENGTH } from "../domain/delivery/PathTemplate.ts"
import { SIDECAR_KINDS, Sidecars } from "../domain/delivery/Sidecars.ts"
import { DownloadFormat, formatIdTransformation } from "../domain/media/FormatId.ts"
import { LanguageCode } from "../domain/media/SubtitleTrack.ts"
import { COOKIE_PLATFORM_IDS } from "../domain/platform/cookiePlatform.ts"

export const MAX_URL_LENGTH = 2048
/** The longest format id (`subtitles_zh-Hant-TW` is 20 characters). */
export const MAX_FORMAT_LENGTH = 64
/** The longest id a client may send (ours are 28 characters; an entry id 20). */
export const MAX_ID_LENGTH = 64
/** The furthest entry of a playlist a resolve may page to (PLAYLIST_MAX_ENTRIES, default 500, reads fewer anyway). */
export const MAX_PLAYLIST_OFFSET = 100_000
/** The longest position a clip section may name: a day, beyond any media this service downloads. */
export const MAX_SECTION_SECONDS = 86_400
/** The longest max_duration a live recording may ask for: a day (LIVE_MAX_DURATION_SECONDS lowers it further). */
export const MAX_RECORDING_SECONDS = 86_400

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
  offset: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_PLAYLIST_OFFSET }))).annotate({
    description: `First entry, 0-${MAX_PLAYLIST_OFFSET} (default 0).`
  }),
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

/** A format id as a client writes it: bounded; its grammar is judged where it is looked up. */
const FormatText = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(MAX_FORMAT_LENGTH, { message: `must be at most ${MAX_FORMAT_LENGTH} characters` })
)

/**
 * Parsed here, once: from the request on, a download's format is a DownloadFormat (an id outside the grammar
 * included). `description` says which formats the request takes.
 */
export const formatField = (description: string) =>
  FormatText.annotate({ description }).pipe(Schema.decodeTo(DownloadFormat, formatIdTransformation))

const FormatField = formatField("video_best, video_<height>p, audio_best, audio_m4a or audio_mp3 (with media_id: one of its formats).")

const Seconds = Schema.Number.check(
  Schema.isFinite({ message: "must be a finite number of seconds" }),
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" }),
  Schema.isLessThanOrEqualTo(MAX_SECTION_SECONDS, { message: `must be at most ${MAX_SECTION_SECONDS}` })
)

/** An id a client names (a media id, a playlist entry's id): bounded, its shape judged where it is looked up. */
export const ClientId = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(MAX_ID_LENGTH, { message: `must be at most ${MAX_ID_LENGTH} characters` })
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

/** Extension: the project's destination a job's file is delivered into, and where in it. */
export const DestinationRequest = Schema.Struct({
  id: Schema.String.check(Schema.isPattern(/^dst_[a-z2-7]{24}$/u, { message: "must be a destination id (dst_...)" })).annotate({
    description: "A destination of the project (POST /destinations); another project's or an unknown one is 404 destination_not_found."
  }),
  path: Schema.optionalKey(
    Schema.String.check(
      Schema.isMinLength(1, { message: "must not be empty" }),
      Schema.isMaxLength(MAX_TEMPLATE_LENGTH, { message: `must be at most ${MAX_TEMPLATE_LENGTH} characters` })
    )
  ).annotate({
    description:
      "Path template inside the destination, with yt-dlp's fields in braces ({uploader}/{title} [{id}].{ext}, the " +
      "default). Every name is made safe for Windows/SMB shares and cut to the limits; an unknown field, an unbalanced " +
      "brace, an absolute path or '..' is 422 invalid_path_template."
  })
}).annotate({ identifier: "DestinationRequest" })
export type DestinationRequest = typeof DestinationRequest.Type

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
  }),
  max_duration: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween({ minimum: 1, maximum: MAX_RECORDING_SECONDS }, { message: `must be an integer from 1 to ${MAX_RECORDING_SECONDS}` })
    )
  ).annotate({
    description:
      "Extension, live streams: seconds after which a recording ends and the job completes with what it recorded. " +
      "The server's LIVE_MAX_DURATION_SECONDS is the default and the ceiling (a larger value is lowered to it). " +
      "Ignored when the media turns out not to be live."
  }),
  live_from_start: Schema.optionalKey(Schema.Boolean).annotate({
    description:
      "Extension, live streams: record from the stream's start where the platform keeps it. No platform the service " +
      "records keeps it today, so true is 422 invalid_options; false (default) records from now."
  }),
  destination: Schema.optionalKey(DestinationRequest).annotate({
    description:
      "Extension: once stored, deliver the file into this destination (the job completes when it is delivered; " +
      "the download_url still works until the job expires)."
  }),
  sidecars: Schema.optionalKey(Sidecars).annotate({
    description: `Extension, with a destination: files written beside the media, any of ${SIDECAR_KINDS.join(", ")}.`
  })
}

export const DownloadByMediaId = Schema.Struct({
  format: FormatField,
  media_id: ClientId.annotate({ description: "data.id of a resolve response." }),
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
export type FormatWithExtensions = DownloadExtensions & { readonly format: DownloadFormat }

/** The longest cookie file POST /cookies takes, in characters. */
export const MAX_COOKIES_TXT_LENGTH = 16 * 1024

/**
 * POST /cookies reads a body of up to this size: the longest file its schema admits, every character written as JSON's
 * longest escape (`\u001f`, 6 bytes), and the rest of the body. A body the schema admits is never refused 413.
 */
export const COOKIES_BODY_LIMIT_BYTES = 6 * MAX_COOKIES_TXT_LENGTH + 1024

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
  cookies_txt: Schema.String.check(
    Schema.isMinLength(1, { message: "must not be empty" }),
    Schema.isMaxLength(MAX_COOKIES_TXT_LENGTH, { message: `must be at most ${MAX_COOKIES_TXT_LENGTH} characters` })
  ).annotate({
    description:
      "The file in Netscape format (7 tab-separated fields per line), as browser export add-ons write it; at most 16,384 characters (this endpoint reads bodies of up to 97 KiB, so the file's JSON escapes always fit)."
  })
}).annotate({ identifier: "CookiesUpload" })
export type CookiesUpload = typeof CookiesUpload.Type

// Reads a Netscape cookies.txt (what browsers' export add-ons and yt-dlp write) into what may be shown about it. Pure.

export interface CookieFileSummary {
  /** Cookie domains without the leading dot, sorted and unique. */
  readonly domains: ReadonlyArray<string>
  readonly cookieCount: number
  /** The earliest expiry among cookies that have one (ms), or null when all are session cookies. */
  readonly expiresAt: number | null
}

export const NETSCAPE_HEADER = "# Netscape HTTP Cookie File"
/** Far more than any real export; larger uploads are refused rather than stored. */
export const MAX_COOKIE_FILE_BYTES = 256 * 1024

const FLAG = /^(TRUE|FALSE)$/i
const DOMAIN = /^\.?[A-Za-z0-9.-]+$/

/**
 * Every non-comment line must have the seven tab-separated fields (domain, include subdomains, path, secure, expiry,
 * name, value); `#HttpOnly_` lines are cookies too. The summary, or a message naming the first bad line (never its
 * content: it may hold a session).
 */
export const summarizeCookieFile = (text: string): CookieFileSummary | string => {
  if (Buffer.byteLength(text) > MAX_COOKIE_FILE_BYTES) return `the file is larger than ${MAX_COOKIE_FILE_BYTES / 1024} KiB`
  const domains = new Set<string>()
  let count = 0
  let expiresAt: number | null = null
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index] ?? ""
    const line = raw.startsWith("#HttpOnly_") ? raw.slice("#HttpOnly_".length) : raw
    if (line.trim() === "" || line.startsWith("#")) continue
    const fields = line.split("\t")
    const [domain = "", subdomains = "", path = "", secure = "", expiry = "", name = ""] = fields
    if (
      fields.length !== 7 ||
      !DOMAIN.test(domain) ||
      !FLAG.test(subdomains) ||
      !path.startsWith("/") ||
      !FLAG.test(secure) ||
      !/^[0-9]+$/.test(expiry) ||
      name === ""
    ) {
      return `line ${index + 1} is not a Netscape cookie line (7 tab-separated fields: domain, subdomains, path, secure, expiry, name, value)`
    }
    count++
    domains.add(domain.replace(/^\./, "").toLowerCase())
    const seconds = Number(expiry)
    if (seconds > 0 && (expiresAt === null || seconds * 1000 < expiresAt)) expiresAt = seconds * 1000
  }
  if (count === 0) return "the file holds no cookies"
  return { domains: [...domains].sort(), cookieCount: count, expiresAt }
}

/** yt-dlp reads a cookies file only after this header; an export without it gets it. */
export const withNetscapeHeader = (text: string): string =>
  /^# (Netscape )?HTTP Cookie File/.test(text) ? text : `${NETSCAPE_HEADER}\n${text}`

/** The cookie lines alone, sorted: two files with the same cookies compare equal whatever their comments and order. */
export const cookieLinesOf = (text: string): string =>
  text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "" && (!line.startsWith("#") || line.startsWith("#HttpOnly_")))
    .sort()
    .join("\n")

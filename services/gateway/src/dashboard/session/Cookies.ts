// Reading and writing the dashboard's cookies: always HttpOnly and SameSite=Strict; Secure and __Host- over https.

export const parseCookies = (header: string | ReadonlyArray<string> | undefined): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  const text = typeof header === "string" ? header : (header ?? []).join("; ")
  for (const part of text.split(";")) {
    const eq = part.indexOf("=")
    if (eq <= 0) continue
    const name = part.slice(0, eq).trim()
    const raw = part.slice(eq + 1).trim()
    // The first value wins, as browsers send the most specific cookie first.
    if (name !== "" && !Object.hasOwn(out, name)) {
      try {
        out[name] = decodeURIComponent(raw)
      } catch {
        out[name] = raw
      }
    }
  }
  return out
}

export interface CookieOptions {
  readonly secure: boolean
  /** Seconds until the browser drops it; 0 deletes it now. */
  readonly maxAgeSeconds: number
}

export const cookieName = (base: string, secure: boolean) => (secure ? `__Host-${base}` : base)

export const serializeCookie = (name: string, value: string, options: CookieOptions): string =>
  [
    `${name}=${encodeURIComponent(value)}`,
    "Path=/",
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    "HttpOnly",
    "SameSite=Strict",
    ...(options.secure ? ["Secure"] : [])
  ].join("; ")

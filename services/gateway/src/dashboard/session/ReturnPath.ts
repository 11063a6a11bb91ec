// Where sign-in returns to: a dashboard path the user was on (a shared link, a deep link), never another site. Pure.

const PROBE_ORIGIN = "http://dashboard.invalid"

/** The path and query of a dashboard page, or null for anything else (another origin, a scheme, the sign-in page itself). */
export const returnPathOf = (raw: unknown): string | null => {
  if (typeof raw !== "string" || raw.length > 4096 || !raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\")) return null
  if (!URL.canParse(raw, PROBE_ORIGIN)) return null
  const url = new URL(raw, PROBE_ORIGIN)
  if (url.origin !== PROBE_ORIGIN) return null
  if (url.pathname !== "/dashboard" && !url.pathname.startsWith("/dashboard/")) return null
  if (url.pathname.startsWith("/dashboard/login") || url.pathname.startsWith("/dashboard/assets/")) return null
  return `${url.pathname}${url.search}`
}

/** The sign-in page, returning to `path` afterwards when it is a dashboard page. */
export const signInPath = (path: string): string => {
  const next = returnPathOf(path)
  return next === null || next === "/dashboard" ? "/dashboard/login" : `/dashboard/login?${new URLSearchParams({ next })}`
}

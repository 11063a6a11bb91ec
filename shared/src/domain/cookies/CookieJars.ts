// Extension: a project's stored cookie files as their change facts tell them: the latest metadata per platform.
import type { Evolver } from "../Decider.ts"
import type { CookieJarEvent } from "./CookieJarEvent.ts"

/** What may be shown about a stored file. */
export interface CookieJarInfo {
  readonly platform: string
  readonly domains: ReadonlyArray<string>
  readonly cookieCount: number
  readonly expiresAt: number | null
  readonly updatedAt: number
  readonly change: "uploaded" | "rotated"
}

/** By platform: the file stored now (a removed one is gone). */
export type CookieJars = ReadonlyMap<string, CookieJarInfo>

export const evolveCookieJars = (jars: CookieJars, event: CookieJarEvent): CookieJars => {
  const next = new Map(jars)
  switch (event._tag) {
    case "CookiesRemoved":
      next.delete(event.platform)
      return next
    case "CookiesUploaded":
    case "CookiesRotated":
      return next.set(event.platform, {
        platform: event.platform,
        domains: event.domains,
        cookieCount: event.cookieCount,
        expiresAt: event.expiresAt,
        updatedAt: event.at,
        change: event._tag === "CookiesUploaded" ? "uploaded" : "rotated"
      })
  }
}

export const CookieJarsFold: Evolver<CookieJarEvent, CookieJars> = { initialState: () => new Map(), evolve: evolveCookieJars }

/** The files of a project, by platform name. */
export const cookieJarList = (jars: CookieJars): ReadonlyArray<CookieJarInfo> =>
  [...jars.values()].sort((a, b) => a.platform.localeCompare(b.platform))

// A project's platform cookies in the dashboard: list (metadata), upload a cookies.txt, remove; the same vault as /v1/cookies.
import { CookiePlatform, CookieUploadPlatform } from "@mds/shared/api/Requests"
import { COOKIE_PLATFORM_IDS } from "@mds/shared/domain/platform/cookiePlatform"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { Effect, Schema } from "effect"
import { field } from "../DashboardForms.ts"
import { type DashboardInput, type Member, pageReply, requireMember } from "../DashboardRoute.ts"
import { cookiesPage } from "../pages/CookiePages.ts"

const isPlatform = Schema.is(CookiePlatform)
const takesCookies = Schema.is(CookieUploadPlatform)

const render = Effect.fn("renderCookies")(function* ({ signedIn, project }: Member, error: string | null, notice: string | null) {
  const jars = yield* (yield* CookieVault).list(project.projectId)
  return pageReply(cookiesPage({ viewer: signedIn.viewer, project, jars, error, notice }), error === null ? 200 : 400)
})

export const showCookies = Effect.fn("showCookies")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return yield* render(member, null, null)
})

export const storeCookies = Effect.fn("storeCookies")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const platform = field(input.body, "platform").trim()
  if (!takesCookies(platform)) {
    return yield* render(
      member,
      `Give the platform of the site's host: one of ${COOKIE_PLATFORM_IDS.join(", ")} (generic for any other site).`,
      null
    )
  }
  const stored = yield* Effect.result((yield* CookieVault).store(project.projectId, platform, field(input.body, "cookies_txt"), "uploaded"))
  if (stored._tag === "Success") {
    return yield* render(member, null, `${stored.success.cookieCount} cookies stored for ${platform}.`)
  }
  switch (stored.failure._tag) {
    case "CookieFileInvalid":
      return yield* render(member, `This is not a Netscape cookies.txt: ${stored.failure.message}.`, null)
    case "CookiesNotConfigured":
      return yield* render(member, "This server cannot store cookies (no COOKIES_ENCRYPTION_KEY).", null)
    default:
      return yield* Effect.fail(stored.failure)
  }
})

export const removeCookies = Effect.fn("removeDashboardCookies")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const platform = input.params["platform"] ?? ""
  if (!isPlatform(platform)) return yield* render(member, "Unknown platform.", null)
  const removed = yield* (yield* CookieVault).remove(project.projectId, platform)
  return yield* render(member, null, removed ? `The cookies for ${platform} are removed.` : `No cookies were stored for ${platform}.`)
})

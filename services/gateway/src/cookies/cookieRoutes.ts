// /v1/cookies (extension): list, upload and remove the key's project's cookie files; metadata only ever leaves.
import { toCookieJar } from "@mds/shared/api/CookieJars"
import { CookiePlatform, CookiesUpload } from "@mds/shared/api/Requests"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidRequest } from "../http/GatewayErrors.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"

const isPlatform = Schema.is(CookiePlatform)

export const listCookies = Effect.fn("listCookies")(function* (_input: RouteInput, principal: Principal) {
  const jars = yield* (yield* CookieVault).list(principal.projectId)
  return json(200, jars.map(toCookieJar))
})

export const uploadCookies = Effect.fn("uploadCookies")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(CookiesUpload, input.body)
  const stored = yield* (yield* CookieVault).store(principal.projectId, body.platform, body.cookies_txt, "uploaded")
  yield* Effect.logInfo("cookies stored", { projectId: principal.projectId, platform: body.platform, cookies: stored.cookieCount })
  return json(200, toCookieJar(stored))
})

export const removeCookies = Effect.fn("removeCookies")(function* (input: RouteInput, principal: Principal) {
  const platform = input.params["platform"] ?? ""
  if (!isPlatform(platform)) return yield* new InvalidRequest({ message: "platform: must be a platform id from GET /platforms." })
  const removed = yield* (yield* CookieVault).remove(principal.projectId, platform)
  return json(200, { platform, removed })
})

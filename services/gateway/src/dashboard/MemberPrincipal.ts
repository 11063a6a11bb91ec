// A signed-in member acting as their project: the principal the /v1 handlers take, so the dashboard queues through them.
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"
import { RateLimitExceeded } from "../limits/LimitErrors.ts"
import { RequestRateLimiter } from "../limits/RequestRateLimiter.ts"
import type { Member } from "./DashboardRoute.ts"

/** A member may do on the page what a key with both scopes may do through the API. */
const MEMBER_SCOPES: ReadonlyArray<Scope> = ["media:resolve", "media:download"]

/**
 * The member's principal: their project (requireMember checked the membership), both scopes, and a rate subject of
 * their own, counted like a key's request against API_RATE_LIMIT_PER_MINUTE. No key exists or reaches the browser:
 * the session is the credential, and the handlers below it are the API's own (slots, quotas, pacing, tenancy).
 */
export const memberPrincipal = Effect.fn("memberPrincipal")(function* (member: Member) {
  const principal: Principal = {
    keyId: `user:${member.signedIn.current.session.userId}`,
    projectId: member.project.projectId,
    scopes: MEMBER_SCOPES
  }
  const counted = (yield* RequestRateLimiter).take(principal.keyId, yield* Clock.currentTimeMillis)
  if (counted instanceof RateLimitExceeded) return yield* counted
  return principal
})

/** A /v1 request as the handlers read it, built from a dashboard form: a JSON body, path parameters, headers. */
export const v1Request = (
  method: "GET" | "POST" | "DELETE",
  options: {
    readonly body?: unknown
    readonly params?: Readonly<Record<string, string>>
    readonly headers?: Readonly<Record<string, string>>
  } = {}
): RouteInput => ({ method, headers: options.headers ?? {}, query: {}, params: options.params ?? {}, body: options.body ?? {} })

/** The `data` of a /v1 handler's JSON answer (the handler built it as the endpoint's schema says). */
export const answerData = (reply: RouteReply): unknown => {
  switch (reply._tag) {
    case "Json":
      return reply.data
    case "EncodedJson":
      return (JSON.parse(reply.body) as { readonly data: unknown }).data
    case "File":
      return null
  }
}

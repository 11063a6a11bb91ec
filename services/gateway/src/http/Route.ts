// A served route: the method and path of an endpoint (or a page), and the Effect that answers it.
import type { Readable } from "node:stream"
import type { Endpoint } from "@mds/shared/api/Endpoint"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { type Context, Effect } from "effect"
import { ApiKeyAuth, type Principal } from "../auth/ApiKeyAuth.ts"
import type { HeaderValue } from "../auth/PresentedKey.ts"
import { type RateQuota, RequestRateLimiter } from "../limits/RequestRateLimiter.ts"
import type { ApiFailure } from "./ErrorMapping.ts"
import { FailureWithHeaders } from "./FailureWithHeaders.ts"

export interface RouteInput {
  readonly method: string
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly query: Readonly<Record<string, unknown>>
  readonly params: Readonly<Record<string, string | undefined>>
  readonly body: unknown
}

export type RouteReply =
  | { readonly _tag: "Json"; readonly status: number; readonly data: unknown; readonly headers?: Readonly<Record<string, string>> }
  | {
    readonly _tag: "File"
    readonly body: Readable
    readonly headers: Readonly<Record<string, string>>
  }

export const json = (status: number, data: unknown, headers?: Readonly<Record<string, string>>): RouteReply =>
  headers === undefined ? { _tag: "Json", status, data } : { _tag: "Json", status, data, headers }

export interface Route<R> {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  /** POST bodies must be JSON. */
  readonly run: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
  /**
   * Answers nearly always from in-process state: a service that answers synchronously when it can (same answer
   * as `run`), so such requests skip the Effect runtime; `run` serves the rest (see MemoryShortcut).
   */
  readonly shortcut?: Context.Key<any, MemoryShortcut>
}

/** What a shortcut makes of a request: an answer or a failure, or "not from memory" (then `run` answers). */
export type ShortcutOutcome =
  | { readonly _tag: "Replied"; readonly reply: RouteReply }
  | { readonly _tag: "Refused"; readonly failure: ApiFailure }
  | { readonly _tag: "NeedsIo" }

export interface MemoryShortcut {
  /** Must answer exactly as the route's `run` would, and change nothing when it answers NeedsIo. */
  tryAnswer(input: RouteInput): ShortcutOutcome
}

/** A route whose answers nearly always come from memory, with the service that gives them synchronously. */
export const withShortcut = <R, I extends MemoryShortcut, S>(route: Route<R>, shortcut: Context.Key<S, I>): Route<R | S> => ({
  ...route,
  shortcut
})

/** A route outside the API's document (the /docs pages): anyone may call it. */
export const pageRoute = <R>(
  method: Route<R>["method"],
  path: string,
  handle: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R> => ({ method, path, run: handle })

/** A keyed route's reply carries the key's rate-limit headers. */
export const withQuotaHeaders = (reply: RouteReply, quota: RateQuota): RouteReply =>
  reply._tag === "Json" ? { ...reply, headers: { ...quota.headers, ...reply.headers } } : reply

/** So does its failure, once the request was counted. */
export const failureWithQuota = (failure: ApiFailure, quota: RateQuota): ApiFailure =>
  Object.keys(quota.headers).length === 0 ? failure : new FailureWithHeaders({ failure, headers: quota.headers })

/** A route that needs a valid key; with a scope, a key holding that scope. Every request counts toward the key's rate. */
const keyedRoute = <R>(
  method: Route<R>["method"],
  path: string,
  scope: Scope | null,
  handle: (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R | ApiKeyAuth | RequestRateLimiter> => ({
  method,
  path,
  run: (input) =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth
      const principal = yield* auth.authenticate({ headers: input.headers, query: input.query }, scope)
      const quota = yield* (yield* RequestRateLimiter).take(principal.keyId)
      const reply = yield* handle(input, principal).pipe(Effect.mapError((failure) => failureWithQuota(failure, quota)))
      return withQuotaHeaders(reply, quota)
    })
})

/** What answers an endpoint: keyed endpoints' handlers also get the authenticated principal. */
export type Handler<E extends Endpoint> = E["access"] extends { readonly _tag: "Keyed" }
  ? (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, any>
  : (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, any>

/** The services a handler needs. */
export type HandlerServices<H> = H extends (...args: ReadonlyArray<any>) => Effect.Effect<any, any, infer R> ? R : never

/** The endpoint served by its handler, behind the key check its access asks for. */
export const endpointRoute = <R>(
  endpoint: Endpoint,
  handle: (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R | ApiKeyAuth | RequestRateLimiter> =>
  endpoint.access._tag === "Keyed"
    ? keyedRoute(endpoint.method, endpoint.path, endpoint.access.scope, handle)
    : { method: endpoint.method, path: endpoint.path, run: (input) => handle(input, ANONYMOUS) }

/** Public handlers never read it: their type takes no principal. */
const ANONYMOUS = undefined as unknown as Principal

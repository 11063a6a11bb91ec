// A /v1 route as data: method, path, who may call it, and the Effect that answers it.
import type { Readable } from "node:stream"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { Effect } from "effect"
import { ApiKeyAuth, type Principal } from "../auth/ApiKeyAuth.ts"
import type { HeaderValue } from "../auth/PresentedKey.ts"
import { RequestRateLimiter } from "../limits/RequestRateLimiter.ts"
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
  readonly method: "GET" | "POST"
  readonly path: string
  /** POST bodies must be JSON. */
  readonly run: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
  /** Answered from in-process state nearly always: run synchronously first (see runFromMemory). */
  readonly fromMemory?: boolean
}

/** Marks a route whose answers nearly always come from memory (see Route.fromMemory). */
export const fromMemory = <R>(route: Route<R>): Route<R> => ({ ...route, fromMemory: true })

export const publicRoute = <R>(
  method: Route<R>["method"],
  path: string,
  handle: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R> => ({ method, path, run: handle })

const withHeaders = (reply: RouteReply, headers: Readonly<Record<string, string>>): RouteReply =>
  reply._tag === "Json" ? { ...reply, headers: { ...headers, ...reply.headers } } : reply

/** A route that needs a valid key; with a scope, a key holding that scope. Every request counts toward the key's rate. */
export const keyedRoute = <R>(
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
      const reply = yield* handle(input, principal).pipe(
        Effect.mapError((failure) => (Object.keys(quota.headers).length === 0 ? failure : new FailureWithHeaders({ failure, headers: quota.headers })))
      )
      return withHeaders(reply, quota.headers)
    })
})

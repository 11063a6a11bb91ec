// A /v1 route as data: method, path, who may call it, and the Effect that answers it.
import type { Readable } from "node:stream"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { Effect } from "effect"
import { ApiKeyAuth, type Principal } from "../auth/ApiKeyAuth.ts"
import type { HeaderValue } from "../auth/PresentedKey.ts"
import type { ApiFailure } from "./ErrorMapping.ts"

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
}

export const publicRoute = <R>(
  method: Route<R>["method"],
  path: string,
  handle: (input: RouteInput) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R> => ({ method, path, run: handle })

/** A route that needs a valid key; with a scope, a key holding that scope. */
export const keyedRoute = <R>(
  method: Route<R>["method"],
  path: string,
  scope: Scope | null,
  handle: (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, R>
): Route<R | ApiKeyAuth> => ({
  method,
  path,
  run: (input) =>
    Effect.gen(function*() {
      const auth = yield* ApiKeyAuth
      const principal = yield* auth.authenticate({ headers: input.headers, query: input.query }, scope)
      return yield* handle(input, principal)
    })
})

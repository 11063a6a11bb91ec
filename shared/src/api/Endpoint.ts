// One /v1 endpoint as data: method, path, who may call it, what it accepts, answers and may fail with.
import type { Schema } from "effect"
import type { ApiErrorCode } from "./ErrorCodes.ts"
import type { Scope } from "../domain/account/AccountEvent.ts"

export type Access = { readonly _tag: "Public" } | { readonly _tag: "Keyed"; readonly scope: Scope | null }

export const PUBLIC = { _tag: "Public" } as const
export const keyed = <S extends Scope | null>(scope: S) => ({ _tag: "Keyed", scope }) as const

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly required: boolean
  readonly description: string
  readonly schema: Schema.Top
}

export interface Endpoint {
  readonly method: "GET" | "POST" | "DELETE"
  /** The path as the router writes it (`:param`, trailing `*`). */
  readonly path: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  readonly access: Access
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: Schema.Top
  /**
   * The body's size limit where it is not the API's 16 KiB (BODY_LIMIT_BYTES): an endpoint whose schema admits a longer
   * body (a cookie file) says so, so every body its schema admits is read.
   */
  readonly bodyLimitBytes?: number
  readonly success: {
    readonly status: number
    readonly description: string
    /**
     * The payload inside `{"data": ...}`; `json` for raw JSON, `binary` for a file stream, `html` for a page,
     * `events` for a server-sent event stream.
     */
    readonly data: Schema.Top | "json" | "binary" | "html" | "events"
    readonly headers?: Readonly<Record<string, string>>
  }
  /** Additional documented answers that are not errors (e.g. the degraded health report). */
  readonly alternatives?: ReadonlyArray<{ readonly status: number; readonly description: string; readonly data: Schema.Top }>
  /** Errors of this endpoint beyond those every keyed route, POST route or route at all can give. */
  readonly errors: ReadonlyArray<ApiErrorCode>
}

/** Every request body is at most this size, unless its endpoint says otherwise (`bodyLimitBytes`). */
export const BODY_LIMIT_BYTES = 16 * 1024

/** The size limit of the endpoint's request body. */
export const bodyLimitOf = (endpoint: Endpoint): number => endpoint.bodyLimitBytes ?? BODY_LIMIT_BYTES

/** The statuses whose body is the endpoint's documented answer rather than an error envelope. */
export const answerStatuses = (endpoint: Endpoint): ReadonlyArray<number> => [
  endpoint.success.status,
  ...(endpoint.alternatives ?? []).map((alternative) => alternative.status)
]

/** The endpoint's path with its `:param` segments filled in (each value percent-encoded). */
export const endpointPath = (endpoint: Endpoint, params: Readonly<Record<string, string>> = {}): string =>
  endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`${endpoint.method} ${endpoint.path}: no value for :${name}`)
    return encodeURIComponent(value)
  })

// Reads the API key a request presents: X-API-Key or Authorization: Bearer, never the query string.
import { Result } from "effect"
import { InvalidApiKey, MissingApiKey } from "./AuthErrors.ts"

export type HeaderValue = string | ReadonlyArray<string> | undefined

export interface CredentialSources {
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly query: Readonly<Record<string, unknown>>
  /** Where the request came from: failed authentications are counted per address (AuthFailureThrottle). */
  readonly address?: string | undefined
}

/** Query parameters people commonly use for keys; only used to explain why such a request counts as keyless. */
const KEY_QUERY_PARAMS = ["api_key", "apikey", "apiKey", "key", "x-api-key", "access_token", "token"]

const single = (value: HeaderValue): Result.Result<string | null, InvalidApiKey> => {
  if (value === undefined) return Result.succeed(null)
  if (typeof value !== "string") {
    return Result.fail(new InvalidApiKey({ message: "Send the API key in a single header." }))
  }
  const trimmed = value.trim()
  return Result.succeed(trimmed === "" ? null : trimmed)
}

const BEARER = /^Bearer\s+(\S+)$/i

export const readPresentedKey = (sources: CredentialSources): Result.Result<string, MissingApiKey | InvalidApiKey> => {
  const apiKeyHeader = single(sources.headers["x-api-key"])
  if (Result.isFailure(apiKeyHeader)) return Result.fail(apiKeyHeader.failure)
  const authorization = single(sources.headers["authorization"])
  if (Result.isFailure(authorization)) return Result.fail(authorization.failure)

  let bearer: string | null = null
  if (authorization.success !== null) {
    const match = BEARER.exec(authorization.success)
    if (match?.[1] === undefined) {
      return Result.fail(new InvalidApiKey({ message: "The Authorization header must use the Bearer scheme." }))
    }
    bearer = match[1]
  }
  const fromHeader = apiKeyHeader.success
  if (fromHeader !== null && bearer !== null && fromHeader !== bearer) {
    return Result.fail(new InvalidApiKey({ message: "X-API-Key and Authorization carry different keys." }))
  }
  const key = fromHeader ?? bearer
  if (key === null) {
    // The query string is never read for credentials; say so when a client evidently tried it.
    const queryKey = KEY_QUERY_PARAMS.find((name) => Object.hasOwn(sources.query, name))
    return Result.fail(
      new MissingApiKey({
        message:
          queryKey === undefined
            ? "An API key is required: send X-API-Key or Authorization: Bearer."
            : `API keys are never accepted in the query string (${queryKey}); send X-API-Key or Authorization: Bearer.`
      })
    )
  }
  return Result.succeed(key)
}

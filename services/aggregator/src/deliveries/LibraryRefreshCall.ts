// Extension: one call to a destination's media server asking it to scan its libraries (Jellyfin: POST
// {url}/Library/Refresh with its API key; Plex: GET {url}/library/sections/all/refresh with X-Plex-Token), to the
// address the egress guard checked, the token sent in a header only (never in a URL a log could keep).
import { Effect, Option, Redacted } from "effect"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import type { DestinationLibraryRefreshed } from "@mds/shared/domain/destination/DestinationEvent"
import type { Destination } from "@mds/shared/domain/destination/DestinationState"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { requestPinned } from "../webhooks/PinnedPost.ts"

export const REFRESH_TIMEOUT_MS = 10_000

export type RefreshOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: NonNullable<DestinationLibraryRefreshed["error"]> }

/** The request for the server's kind: method, URL and headers (the token's only place). */
const requestFor = (kind: "jellyfin" | "plex", base: string, token: string) =>
  kind === "jellyfin"
    ? {
        method: "POST" as const,
        url: new URL(`${base}/Library/Refresh`),
        headers: { "x-emby-token": token, authorization: `MediaBrowser Token="${token}"` }
      }
    : {
        method: "GET" as const,
        url: new URL(`${base}/library/sections/all/refresh`),
        headers: { "x-plex-token": token, accept: "application/json" }
      }

export const statusOutcome = (statusCode: number): RefreshOutcome =>
  statusCode >= 200 && statusCode < 300
    ? { ok: true }
    : { ok: false, error: statusCode === 401 || statusCode === 403 ? "refresh_denied" : "refresh_failed" }

/** Tries after the first, with their waits: a server restarting or briefly unreachable is asked again, as a webhook is. */
export const REFRESH_RETRY_DELAYS_MS = [1_000, 3_000]

/** A failure worth trying again at once: no answer, or the server's own error (5xx). */
const retryable = (statusCode: number | null) => statusCode === null || statusCode >= 500

/** Calls the destination's media server (retried after REFRESH_RETRY_DELAYS_MS while retryable); every failure is an outcome. */
export const callLibraryRefresh = Effect.fn("callLibraryRefresh")(function* (destination: Destination) {
  const refresh = destination.refresh
  if (refresh === undefined) return { ok: true } satisfies RefreshOutcome
  const token = yield* (yield* DestinationAccess).openToken(destination).pipe(Effect.orElseSucceed(() => Option.none()))
  if (Option.isNone(token)) return { ok: false, error: "refresh_failed" } satisfies RefreshOutcome
  const request = requestFor(refresh.kind, refresh.url, Redacted.value(token.value))
  const policy = yield* EgressPolicy
  for (let attempt = 0; ; attempt++) {
    // The guard judges the name at every attempt: an address that changed meanwhile is judged again.
    const target = yield* Effect.result(policy.resolveUrl(request.url))
    if (target._tag === "Failure") return { ok: false, error: "refresh_unreachable" } satisfies RefreshOutcome
    const statusCode = yield* Effect.tryPromise(() =>
      requestPinned(request.method, request.url, target.success, request.headers, "", REFRESH_TIMEOUT_MS)
    ).pipe(
      Effect.map((answer) => answer.statusCode),
      Effect.orElseSucceed(() => null)
    )
    const delay = REFRESH_RETRY_DELAYS_MS[attempt]
    if (!retryable(statusCode) || delay === undefined) {
      return statusCode === null ? ({ ok: false, error: "refresh_unreachable" } satisfies RefreshOutcome) : statusOutcome(statusCode)
    }
    yield* Effect.sleep(delay)
  }
})

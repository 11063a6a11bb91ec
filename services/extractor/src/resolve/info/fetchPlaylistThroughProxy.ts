// Fetches a small text resource (an HLS media playlist) through the egress proxy, as yt-dlp would request it.
import { Effect, type Scope } from "effect"
import { fetch, ProxyAgent } from "undici"
import type { FetchPlaylist } from "./embedHlsPlaylists.ts"

const MAX_BYTES = 2 * 1024 * 1024
const TIMEOUT_MS = 20_000

/**
 * Every request goes through the job's egress proxy, which judges each address like yt-dlp's. Redirects are not
 * followed: yt-dlp resolves segments against the format's own URL, so a moved playlist is left for yt-dlp to fetch.
 */
export const fetchPlaylistThroughProxy = (proxyUrl: string): Effect.Effect<FetchPlaylist, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new ProxyAgent(proxyUrl)),
      (agent) => Effect.promise(() => agent.close().catch(() => undefined))
    ),
    (agent): FetchPlaylist =>
      (url, headers) =>
        Effect.tryPromise(async () => {
          const response = await fetch(url, { dispatcher: agent, headers, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) })
          if (response.status !== 200) {
            await response.body?.cancel()
            return null
          }
          const length = Number(response.headers.get("content-length") ?? "0")
          if (length > MAX_BYTES) {
            await response.body?.cancel()
            return null
          }
          const text = await response.text()
          return text.length > MAX_BYTES ? null : text
        }).pipe(
          Effect.tapError((error) => Effect.logDebug("playlist not embedded", { message: error.message })),
          Effect.orElseSucceed(() => null)
        )
  )

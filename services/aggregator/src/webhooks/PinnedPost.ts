// One webhook POST to the address the egress guard checked: the name is never looked up a second time.
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { LookupFunction } from "node:net"
import type { ResolvedAddress } from "@mds/shared/egress/HostLookup"

export interface PinnedAnswer {
  readonly statusCode: number
}

/**
 * Hands the connection the checked address whatever name it asks for, so a DNS answer that changes between the
 * check and the connection (rebinding) cannot send the POST elsewhere. TLS still verifies the certificate against
 * the URL's host name (SNI and the certificate check use the URL, not the address).
 */
const pinnedLookup =
  (target: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }

/** POSTs `body` to `url` connected to `target`; no redirect is followed. Rejects on network errors and the timeout. */
export const postPinned = (
  url: URL,
  target: ResolvedAddress,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number
): Promise<PinnedAnswer> => requestPinned("POST", url, target, headers, body, timeoutMs)

/** One request of `method` to `url` connected to `target` (a media server's refresh too); no redirect is followed. */
export const requestPinned = (
  method: "GET" | "POST",
  url: URL,
  target: ResolvedAddress,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number
): Promise<PinnedAnswer> =>
  new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    const req = send(
      url,
      {
        method,
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(target),
        signal: AbortSignal.timeout(timeoutMs)
      },
      (res) => {
        // The answer's body is not needed: drained so the socket can close.
        res.resume()
        res.on("end", () => resolve({ statusCode: res.statusCode ?? 0 }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(body)
  })

// How a host name becomes the addresses a fetch may connect to: the type the egress guard takes, and DNS itself.
import { lookup } from "node:dns/promises"

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to every address it has; injectable so tests need no DNS. */
export type HostLookup = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemLookup: HostLookup = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true })
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))
}

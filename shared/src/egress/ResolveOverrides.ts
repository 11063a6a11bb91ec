// EGRESS_RESOLVE_OVERRIDES: a fixed name -> address table the egress guard consults before DNS (for tests only).
import { isIPv4, isIPv6 } from "node:net"
import type { HostLookup, ResolvedAddress } from "./HostLookup.ts"

export type ResolveOverrides = ReadonlyMap<string, ReadonlyArray<ResolvedAddress>>

/**
 * "media.test=127.0.0.1, twin.test=93.184.216.34, twin.test=10.0.0.1, v6.test=::1" -> a table; a name listed
 * twice resolves to every address given, in order. Entries whose address is not an IP literal are ignored.
 * The name "*" answers every name not listed, so that nothing reaches DNS at all (e.g. for fuzzing).
 * Tests use it to point names at private addresses without /etc/hosts or a DNS server, so that the guard's
 * own resolution is what is exercised (the overrides are looked up exactly where DNS would be).
 */
export const parseResolveOverrides = (raw: string): ResolveOverrides => {
  const table = new Map<string, Array<ResolvedAddress>>()
  for (const item of raw.split(",")) {
    const entry = item.trim()
    const equals = entry.indexOf("=")
    if (equals <= 0) continue
    const name = entry.slice(0, equals).trim().toLowerCase().replace(/\.$/, "")
    const address = entry
      .slice(equals + 1)
      .trim()
      .replace(/^\[/, "")
      .replace(/\]$/, "")
    const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : null
    if (name === "" || family === null) continue
    table.set(name, [...(table.get(name) ?? []), { address, family }])
  }
  return table
}

/** Answers overridden names from the table and everything else with `fallback` (the system resolver). */
export const withResolveOverrides = (overrides: ResolveOverrides, fallback: HostLookup): HostLookup =>
  overrides.size === 0
    ? fallback
    : async (hostname) => overrides.get(hostname.toLowerCase().replace(/\.$/, "")) ?? overrides.get("*") ?? fallback(hostname)

// The operator's EGRESS_ALLOW list: host:port pairs that may be reached although their addresses are private.

export type EgressAllowList = ReadonlySet<string>

const normalizeHost = (host: string) => host.trim().toLowerCase().replace(/^\[/, "").replace(/\]$/, "").replace(/\.$/, "")

/** "media.test:8080, [::1]:9000" -> {"media.test:8080", "::1:9000"}; entries without a port are ignored. */
export const parseEgressAllowList = (raw: string): EgressAllowList => {
  const entries = new Set<string>()
  for (const item of raw.split(",")) {
    const entry = item.trim()
    const colon = entry.lastIndexOf(":")
    if (colon <= 0) continue
    const port = Number(entry.slice(colon + 1))
    if (!Number.isInteger(port) || port <= 0 || port > 65535) continue
    entries.add(`${normalizeHost(entry.slice(0, colon))}:${port}`)
  }
  return entries
}

export const isAllowListed = (allow: EgressAllowList, host: string, port: number): boolean => allow.has(`${normalizeHost(host)}:${port}`)

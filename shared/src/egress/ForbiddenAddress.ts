// Which IP addresses and host names an outbound fetch must never reach (SSRF guard), as pure functions.
import { isIPv4, isIPv6 } from "node:net"

type V4Range = readonly [base: number, prefix: number]

const v4 = (dotted: string): number => {
  const parts = dotted.split(".").map(Number)
  return (((parts[0] ?? 0) << 24) | ((parts[1] ?? 0) << 16) | ((parts[2] ?? 0) << 8) | (parts[3] ?? 0)) >>> 0
}

/** Everything that is not the public internet: RFC 6890 special-purpose blocks plus multicast and reserved space. */
const FORBIDDEN_V4: ReadonlyArray<V4Range> = [
  [v4("0.0.0.0"), 8], // "this network", incl. the unspecified address
  [v4("10.0.0.0"), 8], // RFC 1918
  [v4("100.64.0.0"), 10], // carrier-grade NAT
  [v4("127.0.0.0"), 8], // loopback
  [v4("169.254.0.0"), 16], // link-local (cloud metadata endpoints live here)
  [v4("172.16.0.0"), 12], // RFC 1918
  [v4("192.0.0.0"), 24], // IETF protocol assignments
  [v4("192.0.2.0"), 24], // documentation
  [v4("192.88.99.0"), 24], // 6to4 relay anycast
  [v4("192.168.0.0"), 16], // RFC 1918
  [v4("198.18.0.0"), 15], // benchmarking
  [v4("198.51.100.0"), 24], // documentation
  [v4("203.0.113.0"), 24], // documentation
  [v4("224.0.0.0"), 4], // multicast
  [v4("240.0.0.0"), 4] // reserved, incl. broadcast 255.255.255.255
]

const inV4Range = (address: number, [base, prefix]: V4Range) => prefix === 0 || address >>> (32 - prefix) === base >>> (32 - prefix)

const isForbiddenV4Number = (address: number) => FORBIDDEN_V4.some((range) => inV4Range(address, range))

/** Expands an IPv6 literal (with an optional embedded dotted IPv4 tail) to its eight 16-bit groups. */
const ipv6Groups = (literal: string): ReadonlyArray<number> | null => {
  let text = literal
  const lastColon = text.lastIndexOf(":")
  const dottedTail = text.slice(lastColon + 1)
  if (dottedTail.includes(".")) {
    if (!isIPv4(dottedTail)) return null
    const n = v4(dottedTail)
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return null
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)))
  const head = parse(halves[0] ?? "")
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : []
  const missing = 8 - head.length - rest.length
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null
  const groups = [...head, ...Array.from({ length: missing }, () => 0), ...rest]
  if (groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null
  return groups
}

const embeddedV4 = (high: number, low: number) => ((high << 16) | low) >>> 0

const isForbiddenV6 = (literal: string): boolean => {
  const groups = ipv6Groups(literal)
  if (groups === null) return true
  const g = (i: number) => groups[i] ?? 0
  const allZeroUpTo = (n: number) => groups.slice(0, n).every((x) => x === 0)
  // ::/128 unspecified, ::1 loopback, and the deprecated IPv4-compatible ::a.b.c.d form.
  if (allZeroUpTo(6)) return true
  // IPv4-mapped ::ffff:a.b.c.d (also written in hex groups): judge the IPv4 address it carries.
  if (allZeroUpTo(5) && g(5) === 0xffff) return isForbiddenV4Number(embeddedV4(g(6), g(7)))
  // IPv4-translated ::ffff:0:a.b.c.d (SIIT).
  if (allZeroUpTo(4) && g(4) === 0xffff && g(5) === 0) return isForbiddenV4Number(embeddedV4(g(6), g(7)))
  // NAT64 well-known prefix 64:ff9b::/96: the gateway would connect to the embedded IPv4 address.
  if (g(0) === 0x64 && g(1) === 0xff9b && groups.slice(2, 6).every((x) => x === 0)) {
    return isForbiddenV4Number(embeddedV4(g(6), g(7)))
  }
  // Local-use NAT64 64:ff9b:1::/48 only ever points inside a network.
  if (g(0) === 0x64 && g(1) === 0xff9b && g(2) === 1) return true
  // 6to4 2002:AABB:CCDD::/48 tunnels to the IPv4 address AABB:CCDD.
  if (g(0) === 0x2002) return isForbiddenV4Number(embeddedV4(g(1), g(2)))
  // Teredo 2001:0::/32 hides its IPv4 endpoint; documentation 2001:db8::/32.
  if (g(0) === 0x2001 && (g(1) === 0 || g(1) === 0xdb8)) return true
  // Discard-only 100::/64.
  if (g(0) === 0x100 && g(1) === 0 && g(2) === 0 && g(3) === 0) return true
  if ((g(0) & 0xfe00) === 0xfc00) return true // unique local fc00::/7
  if ((g(0) & 0xffc0) === 0xfe80) return true // link-local fe80::/10
  if ((g(0) & 0xffc0) === 0xfec0) return true // site-local fec0::/10 (deprecated, still routed internally)
  if ((g(0) & 0xff00) === 0xff00) return true // multicast ff00::/8
  // Only 2000::/3 is global unicast; everything else (reserved ::/8 and the like) is not the public internet.
  return (g(0) & 0xe000) !== 0x2000
}

/** Strips URL brackets and a zone id ("[fe80::1%eth0]" -> "fe80::1"). */
export const bareAddress = (host: string): string => host.replace(/^\[/, "").replace(/\]$/, "").replace(/%.*$/, "")

/**
 * True when `ip` is an address the service must not connect to. Anything that does not parse as an
 * IP literal is refused too: the guard fails closed.
 */
export const isForbiddenAddress = (ip: string): boolean => {
  const address = bareAddress(ip.trim())
  if (isIPv4(address)) return isForbiddenV4Number(v4(address))
  if (isIPv6(address)) return isForbiddenV6(address.toLowerCase())
  return true
}

/** Names that resolve to the local machine by convention (RFC 6761), whatever DNS says. */
export const isForbiddenHostName = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.$/, "")
  return name === "localhost" || name.endsWith(".localhost") || name === "localhost.localdomain"
}

/**
 * The host as an HTTP client would connect to it: WHATWG URL host parsing turns the decimal, octal, hex and
 * shortened IPv4 spellings ("2130706433", "0x7f.1", "0177.0.0.1", "127.1") into dotted quads and compresses
 * IPv6 (IPv4-mapped "::ffff:127.0.0.1" becomes "::ffff:7f00:1"), so that the address checks above see the
 * address that would really be reached. Null for anything that is not a plain host (userinfo, paths, spaces):
 * such a value is refused, never guessed at.
 */
export const canonicalHost = (host: string): string | null => {
  const trimmed = host.trim()
  const bracketless = bareAddress(trimmed)
  if (isIPv6(bracketless)) return new URL(`http://[${bracketless}]/`).hostname.slice(1, -1)
  if (trimmed === "" || /[^A-Za-z0-9._-]/.test(trimmed)) return null
  if (!URL.canParse(`http://${trimmed}/`)) return null
  const hostname = new URL(`http://${trimmed}/`).hostname.replace(/\.$/, "")
  return hostname === "" ? null : hostname
}

export const isIpLiteral = (host: string): boolean => {
  const address = bareAddress(host)
  return isIPv4(address) || isIPv6(address)
}

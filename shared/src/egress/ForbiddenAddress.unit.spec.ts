import { describe, expect, it } from "vitest"
import { canonicalHost, isForbiddenAddress, isForbiddenHostName } from "./ForbiddenAddress.ts"

describe("isForbiddenAddress", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback /8"],
    ["10.1.2.3", "RFC1918 10/8"],
    ["172.16.0.1", "RFC1918 172.16/12 start"],
    ["172.31.255.255", "RFC1918 172.16/12 end"],
    ["192.168.1.1", "RFC1918 192.168/16"],
    ["169.254.169.254", "link-local metadata"],
    ["100.64.0.1", "CGNAT start"],
    ["100.127.255.255", "CGNAT end"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast SSDP"],
    ["240.0.0.1", "reserved"],
    ["198.18.0.1", "benchmarking"],
    ["192.0.2.10", "documentation"],
    ["::", "v6 unspecified"],
    ["::1", "v6 loopback"],
    ["[::1]", "bracketed v6 loopback"],
    ["0:0:0:0:0:0:0:1", "long v6 loopback"],
    ["fe80::1", "v6 link-local"],
    ["fe80::1%eth0", "v6 link-local with zone"],
    ["febf::1", "v6 link-local end"],
    ["fc00::1", "ULA fc"],
    ["fd12:3456:789a::1", "ULA fd"],
    ["ff02::1", "v6 multicast"],
    ["::ffff:127.0.0.1", "v4-mapped loopback"],
    ["::ffff:7f00:1", "v4-mapped loopback in hex"],
    ["::ffff:a9fe:a9fe", "v4-mapped metadata in hex"],
    ["::ffff:10.0.0.1", "v4-mapped private"],
    ["::127.0.0.1", "v4-compatible"],
    ["64:ff9b::10.0.0.1", "NAT64 of private"],
    ["64:ff9b::7f00:1", "NAT64 of loopback in hex"],
    ["2002:7f00:1::1", "6to4 of loopback"],
    ["2002:c0a8:101::1", "6to4 of 192.168.1.1"],
    ["2001:db8::1", "documentation v6"],
    ["2001:0:4136:e378::1", "Teredo"],
    ["a::f:4e5b", "reserved ::/8 outside global unicast"],
    ["400::1", "unassigned, outside 2000::/3"],
    ["4000::1", "unassigned, outside 2000::/3"],
    ["not-an-ip", "garbage fails closed"],
    ["", "empty fails closed"],
    ["1.2.3", "short v4 fails closed"]
  ])("refuses %s (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true)
  })

  it.each([
    ["8.8.8.8"],
    ["1.1.1.1"],
    ["93.184.216.34"],
    ["172.15.255.255"],
    ["172.32.0.1"],
    ["100.63.255.255"],
    ["100.128.0.1"],
    ["169.253.0.1"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:82b::200e"],
    ["::ffff:8.8.8.8"],
    ["::ffff:808:808"],
    ["64:ff9b::8.8.8.8"],
    ["2002:808:808::1"]
  ])("allows the public address %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false)
  })
})

describe("isForbiddenHostName", () => {
  it.each(["localhost", "LOCALHOST", "localhost.", "api.localhost", "a.b.localhost"])("refuses %s", (name) => {
    expect(isForbiddenHostName(name)).toBe(true)
  })
  it.each(["example.com", "localhost.example.com", "notlocalhost"])("allows %s", (name) => {
    expect(isForbiddenHostName(name)).toBe(false)
  })
})

describe("canonicalHost", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f.0.0.1", "127.0.0.1"],
    ["0x7F000001", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0", "0.0.0.0"],
    ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
    ["3232235777", "192.168.1.1"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
    ["::FFFF:10.0.0.1", "::ffff:a00:1"],
    ["[0:0:0:0:0:0:0:1]", "::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["Media.Example.", "media.example"]
  ])("%s is reached as %s", (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical)
  })

  it.each(["", "user@127.0.0.1", "a b", "evil.com/x", "127.0.0.1:80", "1.2.3.4.5", "0x1.0x2.0x3.0x4.0x5", "ex%61mple.com"])(
    "refuses %j, which is not a plain host",
    (host) => {
      expect(canonicalHost(host)).toBeNull()
    }
  )

  it("every alternative spelling of a forbidden address stays forbidden", () => {
    for (const host of ["2130706433", "0x7f.1", "0251.0376.0251.0376", "[::ffff:a9fe:a9fe]", "100.64.1", "0xe0000001"]) {
      const canonical = canonicalHost(host)
      expect(canonical, host).not.toBeNull()
      expect(isForbiddenAddress(canonical ?? ""), `${host} -> ${canonical}`).toBe(true)
    }
  })
})

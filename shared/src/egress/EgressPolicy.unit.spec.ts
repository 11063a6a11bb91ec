import { describe, expect, it } from "vitest"
import { Effect, Exit } from "effect"
import { parseEgressAllowList } from "./EgressAllowList.ts"
import { makeEgressPolicy } from "./EgressPolicy.ts"
import type { HostLookup } from "./HostLookup.ts"
import { parseResolveOverrides, withResolveOverrides } from "./ResolveOverrides.ts"

const names: Record<string, ReadonlyArray<string>> = {
  "public.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "rebind.example": ["93.184.216.34", "10.0.0.7"],
  "internal.example": ["192.168.0.5"],
  "media.test": ["127.0.0.1"]
}

const fakeDns: HostLookup = async (hostname) => {
  const found = names[hostname]
  if (found === undefined) throw new Error(`ENOTFOUND ${hostname}`)
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

const policy = (allow = "") => makeEgressPolicy(parseEgressAllowList(allow), fakeDns)

const verdict = async (url: string, allow = "") => {
  const exit = await Effect.runPromiseExit(policy(allow).check(new URL(url)))
  return Exit.isSuccess(exit) ? "allowed" : "refused"
}

describe("EgressPolicy.check", () => {
  it("allows a public host", async () => {
    expect(await verdict("https://public.example/video.mp4")).toBe("allowed")
  })

  it.each([
    "http://127.0.0.1/",
    "http://localhost:8080/x",
    "http://sub.localhost/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    // WHATWG URL parsing turns these alternative IPv4 spellings into 127.0.0.1 before we see them.
    "http://2130706433/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://0/"
  ])("refuses %s", async (url) => {
    expect(await verdict(url)).toBe("refused")
  })

  it("normalizes decimal and octal spellings through WHATWG URL", () => {
    expect(new URL("http://2130706433/").hostname).toBe("127.0.0.1")
    expect(new URL("http://0177.0.0.1/").hostname).toBe("127.0.0.1")
  })

  it("refuses when ANY address of the name is private (rebinding-style records)", async () => {
    expect(await verdict("http://rebind.example/")).toBe("refused")
    expect(await verdict("http://internal.example/")).toBe("refused")
  })

  it("refuses names that do not resolve", async () => {
    expect(await verdict("http://nowhere.example/")).toBe("refused")
  })

  it.each(["ftp://public.example/file", "file:///etc/passwd", "gopher://public.example/", "data:text/plain,hi"])(
    "refuses the non-http URL %s",
    async (url) => {
      expect(await verdict(url)).toBe("refused")
    }
  )

  it("refuses URLs with credentials", async () => {
    expect(await verdict("http://user:pw@public.example/")).toBe("refused")
  })

  it("allows a private host:port listed in EGRESS_ALLOW, and only on that port", async () => {
    expect(await verdict("http://media.test:8080/a.mp4", "media.test:8080")).toBe("allowed")
    expect(await verdict("http://media.test:8081/a.mp4", "media.test:8080")).toBe("refused")
    expect(await verdict("http://127.0.0.1:9000/a.mp4", " other:1 , 127.0.0.1:9000")).toBe("allowed")
    expect(await verdict("http://127.0.0.1:9001/a.mp4", "127.0.0.1:9000")).toBe("refused")
  })

  it("carries a message naming the offending address", async () => {
    const exit = await Effect.runPromiseExit(policy().check(new URL("http://internal.example/")))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("192.168.0.5")
  })
})

describe("EgressPolicy.resolveTarget", () => {
  it("returns the address to connect to", async () => {
    const target = await Effect.runPromise(policy().resolveTarget("public.example", 443))
    expect(target.address).toBe("93.184.216.34")
  })
  it("returns an allow-listed private address", async () => {
    const target = await Effect.runPromise(policy("media.test:80").resolveTarget("media.test", 80))
    expect(target).toEqual({ address: "127.0.0.1", family: 4 })
  })
})

describe("EgressPolicy.resolveTarget on raw hosts (a CONNECT authority is not parsed as a URL)", () => {
  const target = async (host: string, port = 443, allow = "") => {
    const exit = await Effect.runPromiseExit(policy(allow).resolveTarget(host, port))
    return Exit.isSuccess(exit) ? exit.value.address : "refused"
  }

  it.each(["2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "0", "0xa9fea9fe", "[::ffff:127.0.0.1]", "::ffff:a9fe:a9fe", "[::]"])(
    "refuses the alternative spelling %s",
    async (host) => {
      expect(await target(host)).toBe("refused")
    }
  )

  it("refuses hosts that are not plain host names", async () => {
    expect(await target("user@public.example")).toBe("refused")
    expect(await target("public.example/x")).toBe("refused")
  })

  it("judges the address an allow-list entry names, whatever its spelling", async () => {
    expect(await target("2130706433", 9000, "127.0.0.1:9000")).toBe("127.0.0.1")
    expect(await target("0x7f.1", 9001, "127.0.0.1:9000")).toBe("refused")
  })
})

describe("EGRESS_RESOLVE_OVERRIDES", () => {
  const overridden = (raw: string) => makeEgressPolicy(parseEgressAllowList(""), withResolveOverrides(parseResolveOverrides(raw), fakeDns))

  it("parses names with one or more addresses and skips malformed entries", () => {
    const table = parseResolveOverrides("a.test=127.0.0.1, A.Test.=::1, b.test=[fd00::1], bad, c.test=not-an-ip, =1.2.3.4")
    expect([...table.entries()]).toEqual([
      [
        "a.test",
        [
          { address: "127.0.0.1", family: 4 },
          { address: "::1", family: 6 }
        ]
      ],
      ["b.test", [{ address: "fd00::1", family: 6 }]]
    ])
  })

  it("answers overridden names from the table and the rest from the resolver behind it", async () => {
    const guard = overridden("cloud.test=93.184.216.34, sneaky.test=169.254.169.254")
    expect(await Effect.runPromise(guard.resolveTarget("cloud.test", 443))).toEqual({ address: "93.184.216.34", family: 4 })
    expect(Exit.isFailure(await Effect.runPromiseExit(guard.resolveTarget("sneaky.test", 80)))).toBe(true)
    expect(await Effect.runPromise(guard.resolveTarget("public.example", 443))).toEqual({ address: "93.184.216.34", family: 4 })
  })

  it("answers every other name from the * entry, so that no lookup reaches DNS", async () => {
    const guard = overridden("cloud.test=93.184.216.34, *=192.0.2.1")
    expect(await Effect.runPromise(guard.resolveTarget("cloud.test", 443))).toEqual({ address: "93.184.216.34", family: 4 })
    expect(Exit.isFailure(await Effect.runPromiseExit(guard.resolveTarget("public.example", 443)))).toBe(true)
    expect(Exit.isFailure(await Effect.runPromiseExit(guard.resolveTarget("nowhere.example", 443)))).toBe(true)
  })
})

describe("EGRESS_ALLOW_ONLY", () => {
  const strict = makeEgressPolicy(parseEgressAllowList("127.0.0.1:9000"), fakeDns, { allowListOnly: true })
  it("reaches the listed entries and nothing else, public or not, without a DNS lookup", async () => {
    expect(await Effect.runPromise(strict.resolveTarget("127.0.0.1", 9000))).toEqual({ address: "127.0.0.1", family: 4 })
    for (const [host, port] of [
      ["93.184.216.34", 443],
      ["public.example", 443],
      ["nowhere.example", 80],
      ["[2606:4700::1111]", 443]
    ] as const) {
      expect(Exit.isFailure(await Effect.runPromiseExit(strict.resolveTarget(host, port))), host).toBe(true)
    }
  })
})

describe("parseEgressAllowList", () => {
  it("normalizes entries and drops malformed ones", () => {
    expect([...parseEgressAllowList("Media.Test:80, [::1]:9000, noport, bad:0, x:99999,")]).toEqual(["media.test:80", "::1:9000"])
  })
})

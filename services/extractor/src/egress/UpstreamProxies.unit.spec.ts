import { describe, expect, it } from "vitest"
import { parsePlatformProxies, proxyUrlOf } from "./UpstreamProxies.ts"

describe("upstream proxy settings", () => {
  it("reads HTTP(S) and SOCKS5 proxies per platform", () => {
    const parsed = parsePlatformProxies("YouTube=socks5://10.0.0.2:1080, vimeo=http://user:secret@proxy:3128")
    expect(typeof parsed).not.toBe("string")
    const proxies = parsed as ReadonlyMap<string, URL>
    expect(proxies.get("youtube")?.href).toBe("socks5://10.0.0.2:1080")
    expect(proxies.get("vimeo")?.username).toBe("user")
  })

  it("refuses other schemes and malformed entries without repeating a password", () => {
    expect(proxyUrlOf("ftp://proxy:21")).toMatch(/scheme must be one of http, https, socks5, socks5h/)
    expect(proxyUrlOf("not a url")).toBe("not a URL")
    const refused = parsePlatformProxies("vimeo=socks4://user:secret@proxy:1080")
    expect(refused).toMatch(/^vimeo: the scheme/)
    expect(refused).not.toMatch(/secret/)
    expect(parsePlatformProxies("socks5://proxy:1080")).toBe("an entry is not PLATFORM=URL")
  })
})

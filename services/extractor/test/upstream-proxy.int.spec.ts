// Upstream proxies: with UPSTREAM_PROXY (HTTP CONNECT) or PLATFORM_UPSTREAM_PROXIES (SOCKS5) every hop the egress
// guard allowed goes through the operator's proxy to the judged address; a hop it refuses never reaches the proxy.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { startHttpConnectProxy, startSocks5Proxy, type UpstreamProxyServer } from "../../../test/support/UpstreamProxyServer.ts"
import { downloadCompletes, type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

let media: MediaServer
beforeAll(async () => {
  media = await startMediaServer()
})
afterAll(async () => {
  await media?.close()
})

describe.each([
  { name: "UPSTREAM_PROXY over HTTP CONNECT", start: startHttpConnectProxy, env: (url: string) => ({ UPSTREAM_PROXY: url }) },
  {
    name: "PLATFORM_UPSTREAM_PROXIES over SOCKS5",
    start: startSocks5Proxy,
    env: (url: string) => ({ PLATFORM_UPSTREAM_PROXIES: `youtube=http://127.0.0.1:9,generic=${url}` })
  }
])("$name", ({ start, env }) => {
  let upstream: UpstreamProxyServer
  let harness: ExtractorHarness
  beforeAll(async () => {
    upstream = await start()
    harness = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, ...env(upstream.url) })
  })
  afterAll(async () => {
    await harness?.close()
    await upstream?.close()
  })

  it("resolves and downloads through the upstream proxy, tunnelled to the address the guard judged", async () => {
    const reply = await harness.resolve(media.urls.page)
    expect(reply._tag, JSON.stringify(reply)).toBe("ResolveSucceeded")
    await downloadCompletes(harness, media.urls.mp4)
    expect(upstream.tunnels.length).toBeGreaterThanOrEqual(2)
    expect(new Set(upstream.tunnels)).toEqual(new Set([media.hostPort]))
  })

  it("refuses a target outside the allow list before anything reaches the upstream proxy", async () => {
    const before = upstream.tunnels.length
    const reply = await harness.resolve(media.urls.redirectTo("http://127.0.0.1:9/private.mp4"))
    expect(reply).toMatchObject({ _tag: "ResolveRejected", code: "url_not_allowed" })
    expect(
      upstream.tunnels.slice(before).every((target) => target === media.hostPort),
      JSON.stringify(upstream.tunnels)
    ).toBe(true)
  })
})

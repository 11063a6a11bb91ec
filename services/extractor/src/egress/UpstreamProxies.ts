// Which upstream proxy a platform's traffic goes through: UPSTREAM_PROXY for all, PLATFORM_UPSTREAM_PROXIES per platform.
import { Config, Context, Effect, Layer, Redacted, Schema } from "effect"
import { UPSTREAM_PROTOCOLS, type UpstreamProxy } from "./UpstreamTunnel.ts"
import { commaSeparatedEntries } from "../ExtractorConfig.ts"

/** "youtube=socks5://10.0.0.2:1080,vimeo=http://user:pass@proxy:3128" -> entries; a message for a malformed one. */
export const parsePlatformProxies = (text: string): ReadonlyMap<string, UpstreamProxy> | string => {
  const proxies = new Map<string, UpstreamProxy>()
  for (const entry of commaSeparatedEntries(text)) {
    const eq = entry.indexOf("=")
    const platform = entry.slice(0, eq).trim().toLowerCase()
    const proxy = proxyUrlOf(entry.slice(eq + 1).trim())
    if (eq <= 0 || !/^[a-z0-9_-]+$/.test(platform)) return "an entry is not PLATFORM=URL"
    if (typeof proxy === "string") return `${platform}: ${proxy}`
    proxies.set(platform, proxy)
  }
  return proxies
}

/** Messages never repeat the URL: it may hold a password. */
export const proxyUrlOf = (text: string): UpstreamProxy | string => {
  if (!URL.canParse(text)) return "not a URL"
  const url = new URL(text)
  if (!(UPSTREAM_PROTOCOLS as ReadonlyArray<string>).includes(url.protocol))
    return `the scheme must be one of ${UPSTREAM_PROTOCOLS.map((p) => p.slice(0, -1)).join(", ")}`
  if (url.hostname === "") return "no host"
  return url
}

/** A malformed setting stops the extractor at start: sending traffic around the operator's proxy is worse. */
export class UpstreamProxyMisconfigured extends Schema.TaggedError<UpstreamProxyMisconfigured>()("UpstreamProxyMisconfigured", {
  message: Schema.String
}) {}

export class UpstreamProxies extends Context.Service<
  UpstreamProxies,
  {
    /** The proxy the platform's hops are tunnelled through, or null: straight to the judged address. */
    forPlatform(platform: string): UpstreamProxy | null
  }
>()("mds/extractor/UpstreamProxies") {
  /** Secrets: proxy URLs may carry credentials, so they are read redacted and never logged. */
  static readonly config = Config.all({
    global: Config.Redacted("UPSTREAM_PROXY").pipe(Config.withDefault(Redacted.make(""))),
    perPlatform: Config.Redacted("PLATFORM_UPSTREAM_PROXIES").pipe(Config.withDefault(Redacted.make("")))
  })

  static readonly layer = Layer.effect(
    UpstreamProxies,
    Effect.gen(function* () {
      const config = yield* UpstreamProxies.config
      const globalText = Redacted.value(config.global).trim()
      const global = globalText === "" ? null : proxyUrlOf(globalText)
      if (typeof global === "string") return yield* new UpstreamProxyMisconfigured({ message: `UPSTREAM_PROXY: ${global}` })
      const perPlatform = parsePlatformProxies(Redacted.value(config.perPlatform))
      if (typeof perPlatform === "string")
        return yield* new UpstreamProxyMisconfigured({ message: `PLATFORM_UPSTREAM_PROXIES: ${perPlatform}` })
      if (global !== null || perPlatform.size > 0) {
        yield* Effect.logInfo("platform traffic goes through upstream proxies", {
          global: global === null ? "none" : `${global.protocol}//${global.host}`,
          platforms: [...perPlatform.keys()].join(",")
        })
      }
      return UpstreamProxies.of({ forPlatform: (platform) => perPlatform.get(platform) ?? global })
    })
  )
}

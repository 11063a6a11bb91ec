// Decides whether the service may fetch a URL: http(s) only, and never a private, loopback or otherwise internal address.
import { Config, Context, Effect, Layer, Schema } from "effect"
import { UrlNotAllowed } from "../domain/DomainErrors.ts"
import { type EgressAllowList, isAllowListed, parseEgressAllowList } from "./EgressAllowList.ts"
import { type HostLookup, type ResolvedAddress, systemLookup } from "./HostLookup.ts"
import { canonicalHost, isForbiddenAddress, isForbiddenHostName, isIpLiteral } from "./ForbiddenAddress.ts"
import { parseResolveOverrides, withResolveOverrides } from "./ResolveOverrides.ts"

/** The host name has no address: not a policy refusal, the fetch simply cannot happen. */
export class HostUnresolvable extends Schema.TaggedError<HostUnresolvable>()("HostUnresolvable", {
  host: Schema.String,
  message: Schema.String
}) {}

export const defaultPort = (url: URL): number => (url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80)

export interface EgressPolicyShape {
  /** Fails with UrlNotAllowed unless the URL is http(s) and every address of its host may be reached. */
  check(url: URL): Effect.Effect<void, UrlNotAllowed>
  /** `check`, returning the address to connect to: a client that connects there never looks the name up again. */
  resolveUrl(url: URL): Effect.Effect<ResolvedAddress, UrlNotAllowed>
  /**
   * Resolves host:port once and returns the address to connect to, refusing if ANY address is forbidden.
   * Connecting to exactly this address (no second lookup) keeps DNS rebinding out.
   */
  resolveTarget(host: string, port: number): Effect.Effect<ResolvedAddress, UrlNotAllowed | HostUnresolvable>
}

const refuse = (target: string, message: string) => new UrlNotAllowed({ url: target, message })

export interface EgressPolicyOptions {
  /** Refuse every destination that EGRESS_ALLOW does not list (EGRESS_ALLOW_ONLY), public or not. */
  readonly allowListOnly?: boolean
}

export const makeEgressPolicy = (allow: EgressAllowList, resolveHost: HostLookup, options: EgressPolicyOptions = {}): EgressPolicyShape => {
  const resolveTarget = Effect.fn("EgressPolicy.resolveTarget")(function* (host: string, port: number) {
    const name = canonicalHost(host)
    if (name === null) return yield* refuse(`${host}:${port}`, `${JSON.stringify(host).slice(0, 80)} is not a valid host name`)
    const target = `${name}:${port}`
    const allowed = isAllowListed(allow, name, port)
    if (options.allowListOnly === true && !allowed) return yield* refuse(target, `${name}:${port} is not in EGRESS_ALLOW`)
    if (isIpLiteral(name)) {
      if (!allowed && isForbiddenAddress(name)) {
        return yield* refuse(target, `${name} is a private or reserved address`)
      }
      return { address: name, family: name.includes(":") ? 6 : 4 } as const
    }
    if (!allowed && isForbiddenHostName(name)) return yield* refuse(target, `${name} names the local machine`)
    const unresolvable = new HostUnresolvable({ host: name, message: `the host name ${name} does not resolve` })
    const addresses = yield* Effect.tryPromise({ try: () => resolveHost(name), catch: () => unresolvable })
    const first = addresses[0]
    if (first === undefined) return yield* unresolvable
    if (!allowed) {
      const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address))
      if (forbidden !== undefined) {
        return yield* refuse(target, `${name} resolves to the private or reserved address ${forbidden.address}`)
      }
    }
    return first
  })

  const resolveUrl = Effect.fn("EgressPolicy.resolveUrl")(function* (url: URL) {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return yield* refuse(url.href, `only http and https URLs can be fetched, not ${url.protocol}`)
    }
    if (url.username !== "" || url.password !== "") {
      return yield* refuse(url.href, "URLs with credentials are not accepted")
    }
    return yield* resolveTarget(url.hostname, defaultPort(url)).pipe(Effect.mapError((error) => refuse(url.href, error.message)))
  })

  const check = (url: URL) => Effect.asVoid(resolveUrl(url))

  return { check, resolveUrl, resolveTarget }
}

export class EgressPolicy extends Context.Service<EgressPolicy, EgressPolicyShape>()("mds/egress/EgressPolicy") {
  static readonly config = Config.all({
    allow: Config.String("EGRESS_ALLOW").pipe(Config.withDefault(""), Config.map(parseEgressAllowList)),
    /** For tests only: names the guard resolves from a table instead of DNS (see ResolveOverrides). */
    overrides: Config.String("EGRESS_RESOLVE_OVERRIDES").pipe(Config.withDefault(""), Config.map(parseResolveOverrides)),
    /** Nothing but the EGRESS_ALLOW entries can be reached: for locked-down deployments and hermetic test stacks. */
    allowListOnly: Config.Boolean("EGRESS_ALLOW_ONLY").pipe(Config.withDefault(false))
  })

  static readonly layer = Layer.effect(
    EgressPolicy,
    Effect.map(EgressPolicy.config, ({ allow, overrides, allowListOnly }) =>
      EgressPolicy.of(makeEgressPolicy(allow, withResolveOverrides(overrides, systemLookup), { allowListOnly }))
    )
  )

  /** For tests: a fixed allow list and a name table instead of DNS. */
  static readonly layerWith = (allow: string, resolveHost: HostLookup) =>
    Layer.succeed(EgressPolicy, EgressPolicy.of(makeEgressPolicy(parseEgressAllowList(allow), resolveHost)))
}

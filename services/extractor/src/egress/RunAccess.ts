// What a yt-dlp run towards a platform goes out with: the egress proxy (through the platform's upstream proxy, if
// one is set) and the project's cookies for the URL's platform. Both last as long as the run's scope.
import { Context, Effect, Layer } from "effect"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { RunCookies } from "../cookies/RunCookies.ts"
import { egressProxy } from "./EgressProxy.ts"
import { UpstreamProxies } from "./UpstreamProxies.ts"

export class RunAccess extends Context.Service<RunAccess>()("mds/extractor/RunAccess", {
  make: Effect.gen(function* () {
    const policy = yield* EgressPolicy
    const upstreams = yield* UpstreamProxies
    const runCookies = yield* RunCookies

    /** A run without a project (a resolve by the gateway alone) goes without cookies. */
    const open = (platform: string, projectId: string | null, url: string) =>
      Effect.gen(function* () {
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(platform))
        const cookies = projectId === null ? { flags: {}, used: false } : yield* runCookies.forRun(projectId, url)
        return { proxy, cookies }
      })

    return { open }
  })
}) {
  static readonly layer = Layer.effect(RunAccess, RunAccess.make)
}

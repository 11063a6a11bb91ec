// A project's Usage tab: the same report and quota standings GET /v1/usage answers, drawn for people.
import { Clock, Effect } from "effect"
import { type DashboardInput, pageReply, requireMember } from "../DashboardRoute.ts"
import { usagePage } from "../pages/UsagePages.ts"
import { projectUsage } from "../../usage/readUsage.ts"
import { defaultUsageRange, usageRange } from "../../usage/UsageRange.ts"

export const showUsage = Effect.fn("showUsage")(function* (input: DashboardInput) {
  const { project, signedIn } = yield* requireMember(input)
  const now = yield* Clock.currentTimeMillis
  const asked = usageRange({ from: input.query?.["from"], to: input.query?.["to"] }, now)
  // A bad range shows the default one with the reason, rather than an error page.
  const refused = "message" in asked ? asked : null
  const range = "message" in asked ? defaultUsageRange(now) : asked
  const { report, quotas } = yield* projectUsage(project.projectId, range)
  return pageReply(
    usagePage({
      viewer: signedIn.viewer,
      project,
      report,
      quotas: quotas.standings,
      error: refused?.message ?? null
    }),
    refused === null ? 200 : refused.malformed ? 400 : 422
  )
})

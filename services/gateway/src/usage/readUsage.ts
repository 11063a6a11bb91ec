// GET /v1/usage (extension): the key's project's usage per day in a range, and its quotas now.
import { toUsage } from "@mds/shared/api/Usage"
import { usageReport } from "@mds/shared/domain/usage/UsageReport"
import { quotaStandingsOf } from "@mds/shared/application/admission/QuotaCheck"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidDateRange, InvalidRequest } from "../http/GatewayErrors.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { usageRange } from "./UsageRange.ts"

/** The project's usage report for a range, with its quota standings: what the API and the dashboard show. */
export const projectUsage = Effect.fn("projectUsage")(function* (projectId: string, range: { readonly from: string; readonly to: string }) {
  const jobs = yield* (yield* UsageReadModel).listDays(projectId, range.from, range.to)
  const quotas = yield* quotaStandingsOf(projectId)
  return { report: usageReport(range.from, range.to, jobs), quotas }
})

export const readUsage = Effect.fn("readUsage")(function* (input: RouteInput, principal: Principal) {
  const range = usageRange({ from: input.query["from"], to: input.query["to"] }, yield* Clock.currentTimeMillis)
  if ("message" in range) {
    return yield* range.malformed ? new InvalidRequest({ message: range.message }) : new InvalidDateRange({ message: range.message })
  }
  const { report, quotas } = yield* projectUsage(principal.projectId, range)
  return json(200, toUsage(report, quotas.standings))
})

// Whether a project could start a job now as far as its quotas go: the check of every path that queues work later.
import { Clock, Effect } from "effect"
import { quotaExceeded } from "../../domain/admission/AdmissionDecider.ts"
import { exhaustedQuota, quotaStandings } from "../../domain/admission/Quota.ts"
import { ProjectQuotaReader } from "../account/ProjectQuotaReader.ts"
import { currentAdmission } from "./AdmissionCommands.ts"

/** The project's quotas with what is used of them now (the admission's read door). */
export const quotaStandingsOf = Effect.fn("quotaStandingsOf")(function* (projectId: string) {
  const limits = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
  const { state } = yield* currentAdmission(projectId)
  const now = yield* Clock.currentTimeMillis
  return { limits, usage: state.usage, now, standings: quotaStandings(limits, state.usage, now) }
})

/**
 * Refuses with QuotaExceeded when a quota is used up now. Only a fast answer for requests that queue jobs later (a
 * batch, and subscriptions as they are built): each of their jobs is still admitted by the admission decider, which
 * judges slots and quotas atomically.
 */
export const ensureWithinQuota = Effect.fn("ensureWithinQuota")(function* (projectId: string) {
  const { limits, usage, now } = yield* quotaStandingsOf(projectId)
  const exhausted = exhaustedQuota(limits, usage, now)
  if (exhausted !== null) return yield* quotaExceeded(projectId, exhausted, now)
})

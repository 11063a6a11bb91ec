// Whether a project could start a job now as far as its quotas go: the check of every path that queues work later.
import { Clock, Effect, Option } from "effect"
import { AdmissionDecider, quotaExceeded } from "../domain/admission/AdmissionDecider.ts"
import { AdmissionEvent } from "../domain/admission/AdmissionEvent.ts"
import { exhaustedQuota, quotaStandings } from "../domain/admission/Quota.ts"
import { EventStore } from "../eventstore/EventStore.ts"
import { admissionSubject } from "../eventstore/Subjects.ts"
import { ProjectQuotaReader } from "./ProjectQuotaReader.ts"

/** The project's quotas with what is used of them now (the admission subject's last event). */
export const quotaStandingsOf = Effect.fn("quotaStandingsOf")(function* (projectId: string) {
  const limits = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
  const last = yield* (yield* EventStore).readLast(AdmissionEvent, admissionSubject(projectId))
  const state = Option.match(last, {
    onNone: AdmissionDecider.initialState,
    onSome: ({ event }) => AdmissionDecider.evolve(AdmissionDecider.initialState(), event)
  })
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

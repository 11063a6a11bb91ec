// The slot reconcile: on a timer, every project's slots of tries that ended without their release (the releaser died
// between its two writes) and orphan claims past their grace are freed, as an admission on a full project would.
import { Config, Effect, Layer } from "effect"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { releaseFinished } from "@mds/shared/application/admission/AdmitJob"
import { JobStates } from "@mds/shared/application/job/JobStates"
import type { Lifetimes } from "@mds/shared/config/Lifetimes"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import type { NatsClient } from "@mds/shared/nats/NatsClient"
import { admissionSubject } from "@mds/shared/nats/Subjects"
import { listSubjects } from "@mds/shared/nats/SubjectListing"
import { Done, runReactor } from "../reactors/Reactor.ts"

export const SlotReconcileConfig = Config.all({
  /** How often every project's slots are looked at (SLOT_RECONCILE_INTERVAL_SECONDS). */
  everyMs: secondsAsMs("SLOT_RECONCILE_INTERVAL_SECONDS", 60)
})

/**
 * A reactor with no wake-up but its clock (reactors/Reactor.ts): what it acts on is a releaser that never came, which
 * no event announces. Its round is `releaseFinished` (AdmitJob.ts): each release it makes is judged by the admission
 * decider (an orphan only while its try is unrecorded), so several aggregators reconciling at once do no harm.
 */
export const SlotReconcile = Layer.effectDiscard(
  Effect.gen(function* () {
    const { everyMs } = yield* SlotReconcileConfig
    yield* runReactor<{ readonly projectId: string }, "Reconcile", EventStore | JobStates | Lifetimes | ProjectQuotaReader | NatsClient>({
      name: "slot reconcile",
      keyOf: ({ projectId }) => projectId,
      round: ({ projectId }) =>
        releaseFinished(projectId).pipe(
          Effect.tap((freed) => (freed > 0 ? Effect.logInfo("slots of ended tries freed", { projectId, freed }) : Effect.void)),
          Effect.as(Done)
        ),
      wakeSources: [],
      reconcile: { everyMs, candidates: listSubjects(admissionSubject), trigger: "Reconcile" as const }
    })
    yield* Effect.logInfo("slot reconcile running", { everyMs })
  })
).pipe(Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer)))

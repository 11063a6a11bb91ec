// The usage projection: each job's share of its project's usage, from the job's one state whenever its status changes.
import { Context, Effect, Layer, Option, Schema } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { changesJobStatus } from "@mds/shared/domain/job/JobState"
import { jobUsageOf } from "@mds/shared/domain/usage/JobUsage"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { projection } from "../projections/Projection.ts"

export type UsageProjectionOutcome = "written" | "unchanged"

/**
 * The job's usage is replaced, never added to: it is computed from the job's state as of its latest event (the job
 * read model's document plus the events after it), so a redelivered, late or replayed message writes the same entry
 * and a replay from the stream's start ends with the same read model. Progress events change no status: skipped.
 */
export const makeUsageProjector = (readModel: UsageReadModel["Service"], jobStates: JobStates["Service"]) =>
  Effect.fn("UsageProjection.apply")(function* (event: JobEvent, subject: string) {
    if (!changesJobStatus(event)) return "unchanged" as const
    const ids = jobSubject.parse(subject)
    if (Option.isNone(ids)) return yield* Effect.as(stepOverSubject("usage projection", subject), "unchanged" as const)
    const current = yield* jobStates.current(ids.value.projectId, ids.value.jobId)
    const usage = jobUsageOf(current.state, current.lastSeq)
    if (usage === null) return "unchanged" as const
    yield* readModel.record(usage)
    return "written" as const
  })

export class UsageProjection extends Context.Service<
  UsageProjection,
  {
    apply(event: JobEvent, subject: string): Effect.Effect<UsageProjectionOutcome, unknown>
  }
>()("mds/aggregator/UsageProjection") {
  static readonly layer = Layer.effect(
    UsageProjection,
    Effect.gen(function* () {
      return UsageProjection.of({ apply: makeUsageProjector(yield* UsageReadModel, yield* JobStates) })
    })
  )
}

/** mds.job.> into the usage read model. */
export const usageProjection = projection({
  stream: JOBS_STREAM.name,
  durable: "aggregator-usage",
  filter: jobSubject.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent)),
  project: (event: JobEvent, message) => Effect.flatMap(UsageProjection, (usage) => usage.apply(event, message.subject))
})

// The live job projection: every delivered job event goes through the job projector, one message at a time.
import { Context, Effect, Layer, Schema } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { projection } from "../projections/Projection.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"
import { type DeliveredJobMessage, type JobProjectionOutcome, makeJobProjector } from "./JobProjector.ts"

/** About 1 KB a view: ~10 MB for the jobs in flight; a job dropped from memory costs one read when it goes on. */
const LIVE_DOCUMENTS = 10_000

/**
 * The durable consumer's lanes keep one job's events in order, but a message nak'd and redelivered can come after
 * later ones: the projector then folds from the subject's history rather than trusting delivery order.
 */
export class JobProjection extends Context.Service<
  JobProjection,
  {
    apply(message: DeliveredJobMessage): Effect.Effect<JobProjectionOutcome, unknown>
  }
>()("mds/aggregator/JobProjection") {
  static readonly layer = Layer.effect(
    JobProjection,
    Effect.gen(function* () {
      const projector = makeJobProjector(yield* JobReadModel, yield* SubjectHistory, {
        documents: LIVE_DOCUMENTS,
        concurrency: 1,
        ordered: false
      })
      return JobProjection.of({ apply: (message) => projector.projectSubject(message.subject, [message]) })
    })
  )
}

/** mds.job.> into the job read model. */
export const jobsProjection = projection({
  stream: JOBS_STREAM.name,
  durable: "aggregator-jobs",
  filter: jobSubject.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent)),
  project: (_event, message) => Effect.flatMap(JobProjection, (jobs) => jobs.apply(message))
})

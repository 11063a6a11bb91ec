// Folds a job subject's events into its JobView document and stores it, with a download link once completed.
import { Context, Effect, Layer, Option, Schema } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { ALL_JOBS_SUBJECT, JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { foldJobMessages, parseJobSubject, withDownloadUrl } from "./JobDocumentFold.ts"
import { projection } from "../projections/Projection.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"

export type JobProjectionOutcome = "written" | "unchanged"

/**
 * The projection does not trust delivery order. It reads every event of the subject between the document's
 * lastSeq and the delivered message from the stream, so a message nak'd and redelivered after a later one of
 * the same job is not lost (evolveJobView would skip an event with a sequence below lastSeq), and replaying
 * the stream from the start rebuilds the same documents.
 */
export class JobProjection extends Context.Service<JobProjection, {
  catchUp(subject: string, uptoSeq: number): Effect.Effect<JobProjectionOutcome, unknown>
}>()("mds/aggregator/JobProjection") {
  static readonly layer = Layer.effect(
    JobProjection,
    Effect.gen(function*() {
      const readModel = yield* JobReadModel
      const artifacts = yield* ArtifactStore
      const history = yield* SubjectHistory

      const linked = withDownloadUrl(artifacts)

      const catchUp = Effect.fn("JobProjection.catchUp")(function*(subject: string, uptoSeq: number) {
        const ids = parseJobSubject(subject)
        if (Option.isNone(ids)) return "unchanged" as const
        const stored = Option.getOrNull(yield* readModel.get(ids.value.projectId, ids.value.jobId))
        if (stored !== null && stored.lastSeq >= uptoSeq) return "unchanged" as const

        const raw = yield* history.range(JOBS_STREAM.name, subject, stored?.lastSeq ?? 0, uptoSeq)
        const doc = foldJobMessages(stored, raw)
        if (doc === null || doc === stored) return "unchanged" as const
        yield* readModel.put(yield* linked(doc))
        return "written" as const
      })

      return JobProjection.of({ catchUp })
    })
  )
}

/** mds.job.> into the job read model: each delivered event makes the projection catch its job up to it. */
export const jobsProjection = projection({
  stream: JOBS_STREAM.name,
  durable: "aggregator-jobs",
  filter: ALL_JOBS_SUBJECT,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent)),
  project: (_event, message) => Effect.flatMap(JobProjection, (jobs) => jobs.catchUp(message.subject, message.seq))
})

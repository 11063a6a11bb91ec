// Stands in for the aggregator's job projection beside an in-process gateway (the harness runs no aggregator): folds
// MDS_JOBS and writes each job's view to the job read model, which the gateway's job view mirror follows.
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { ALL_JOBS_SUBJECT, JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { startFollower } from "@mds/shared/nats/StreamFollower"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { Effect, Layer, Option, Queue } from "effect"

export const JobProjectionStandIn = Layer.effectDiscard(
  Effect.gen(function* () {
    const readModel = yield* JobReadModel
    const views = new Map<string, JobView>()
    const writes = yield* Queue.unbounded<JobView>()
    yield* startFollower({
      name: "job_projection_stand_in",
      stream: JOBS_STREAM.name,
      filterSubject: ALL_JOBS_SUBJECT,
      from: "all",
      onMessage: (message) => {
        const event = decodeJobEventJson(message.data)
        if (Option.isNone(event)) return
        const view = evolveJobView(views.get(message.subject) ?? null, event.value, message.seq)
        if (view === null) return
        views.set(message.subject, view)
        Queue.offerUnsafe(writes, view)
      }
    })
    // In order, one at a time, as the aggregator writes: put keeps the view of the highest lastSeq.
    yield* Queue.take(writes).pipe(
      Effect.flatMap((view) => readModel.put(view)),
      Effect.ignore,
      Effect.forever,
      Effect.forkScoped
    )
  })
)

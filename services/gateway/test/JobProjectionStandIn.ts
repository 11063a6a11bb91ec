// Stands in for the aggregator's job projection beside an in-process gateway (the harness runs no aggregator): folds
// MDS_JOBS and writes each job's view to the job read model, which the gateway's job view mirror follows.
import { followJobEvents } from "@mds/shared/application/job/JobEventFollower"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { Effect, Layer, Queue } from "effect"

export const JobProjectionStandIn = Layer.effectDiscard(
  Effect.gen(function* () {
    const readModel = yield* JobReadModel
    const views = new Map<string, JobView>()
    const writes = yield* Queue.unbounded<JobView>()
    yield* followJobEvents("job_projection_stand_in", (event, message) => {
      const view = evolveJobView(views.get(message.subject) ?? null, event, message.seq)
      if (view === null) return
      views.set(message.subject, view)
      Queue.offerUnsafe(writes, view)
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

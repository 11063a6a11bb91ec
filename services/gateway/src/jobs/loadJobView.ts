// A job's read-model document, or (read-your-writes) the same document folded straight from its event subject.
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { Effect, Option } from "effect"

export const loadJobView = Effect.fn("loadJobView")(function*(projectId: string, jobId: string) {
  const readModel = yield* JobReadModel
  const projected = yield* readModel.get(projectId, jobId)
  if (Option.isSome(projected)) return projected
  // The aggregator may not have projected a job queued a moment ago; its events are already in the stream.
  const store = yield* EventStore
  const events = yield* store.readSubject(JobEvent, jobSubject(projectId, jobId))
  let doc: JobView | null = null
  for (const stored of events) doc = evolveJobView(doc, stored.event, stored.seq)
  return Option.fromNullishOr(doc)
})

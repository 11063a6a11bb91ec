// A job's state as the extractor reads it (it holds no read model): the job's events after a state already known,
// folded with the job's one evolve (foldJobEvents). A first read starts from nothing.
import { Effect } from "effect"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { type CurrentJob, foldJobEvents } from "@mds/shared/jobs/JobStates"

export const noJobYet: CurrentJob = { state: null, lastSeq: 0 }

export const readJobState = (projectId: string, jobId: string, known: CurrentJob = noJobYet) =>
  Effect.gen(function* () {
    const events = yield* (yield* EventStore).readSubject(JobEvent, jobSubject(projectId, jobId), known.lastSeq)
    return { state: foldJobEvents(known.state, events), lastSeq: events.at(-1)?.seq ?? known.lastSeq } satisfies CurrentJob
  })

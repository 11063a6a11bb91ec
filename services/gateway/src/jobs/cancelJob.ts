// Extension, DELETE /v1/jobs/:jobId: cancel a queued or processing job of the key's project and free its slot at once.
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { releaseAdmittedSlot } from "./admitJob.ts"
import { toJobResponse } from "@mds/shared/api/JobResponse"

const isJobId = Schema.is(JobId)

/**
 * The decider judges from the job's own events (another project's job is an empty subject here, so not found): a
 * queued or processing job is canceled, a canceled one stays so (DELETE is idempotent), a finished one is a 409.
 * The worker running it sees JobCanceled and stops; the slot is released here so the project can queue at once.
 */
export const cancelJob = Effect.fn("cancelJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const subject = jobSubject(principal.projectId, jobId)
  const now = yield* Clock.currentTimeMillis
  yield* jobCommands(principal.projectId, jobId)({ _tag: "CancelJob", jobId, now })
  // Idempotent: releasing a slot that is not held (already released, or a repeated DELETE) changes nothing.
  yield* releaseAdmittedSlot(principal.projectId, jobId, "canceled")
  const stored = yield* (yield* EventStore).readSubject(JobEvent, subject)
  const view = stored.reduce<JobView | null>((doc, item) => evolveJobView(doc, item.event, item.seq), null)
  if (view === null) return yield* new JobNotFound({ jobId })
  return json(200, toJobResponse(view, null))
})

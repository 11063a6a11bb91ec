// Extension, DELETE /v1/jobs/:jobId: cancel a queued or processing job of the key's project.
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
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
 * A job canceled while queued frees its slot here, so the project can queue at once; one a worker had started keeps
 * it until that worker has stopped the run (slotReleaseOf), so a third run never starts beside a canceled one.
 */
export const cancelJob = Effect.fn("cancelJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const now = yield* Clock.currentTimeMillis
  const { state } = yield* jobCommands(principal.projectId, jobId)({ _tag: "CancelJob", jobId, now })
  if (state === null) return yield* new JobNotFound({ jobId })
  const reason = slotReleaseOf(state)
  // Idempotent: releasing a slot that is not held (already released, or a repeated DELETE) changes nothing.
  if (reason !== null) yield* releaseAdmittedSlot(principal.projectId, jobId, reason)
  return json(200, toJobResponse(state, null))
})

// Extension, DELETE /v1/jobs/:jobId: cancel a queued or processing job of the key's project.
import { toJobResponse } from "@mds/shared/api/JobResponse"
import { cancelJob as cancelProjectJob } from "@mds/shared/application/job/CancelJob"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { JobId } from "@mds/shared/ids/Ids"
import { Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { JobViewCache } from "./JobViewCache.ts"

const isJobId = Schema.is(JobId)

/** The job of the key's project is canceled (CancelJob.ts says what that does to its slot): 200 with the job. */
export const cancelJob = Effect.fn("cancelJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const { state, lastSeq } = yield* cancelProjectJob(principal.projectId, jobId)
  // Read-your-writes: this gateway's next read of the job answers what it just wrote, not an older cached view.
  ;(yield* JobViewCache).seed({ ...state, lastSeq })
  return json(200, toJobResponse(state, null))
})

// Extension, POST /v1/jobs/:jobId/retry: queue a failed job of the key's project again, when its failure was retryable.
import { toJobResponse } from "@mds/shared/api/JobResponse"
import { retryJob as retryProjectJob } from "@mds/shared/application/job/RetryJob"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { JobId } from "@mds/shared/ids/Ids"
import { Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { JobViewCache } from "./JobViewCache.ts"

const isJobId = Schema.is(JobId)

/**
 * The retry's steps are RetryJob.ts (another project's job is an empty subject there, so not found): 409 for a job that
 * cannot be retried, 429 when the project's slots are all held or a quota is used up, else 202 with the queued job.
 */
export const retryJob = Effect.fn("retryJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const retried = yield* retryProjectJob(principal.projectId, jobId, "client")
  ;(yield* JobViewCache).seed({ ...retried.state, lastSeq: retried.lastSeq })
  return json(202, toJobResponse(retried.state, null))
})

// Extension, POST /v1/jobs/:jobId/stop: end a live recording of the key's project and keep what it recorded.
import { toJobResponse } from "@mds/shared/api/JobResponse"
import { stopRecording } from "@mds/shared/application/job/StopRecording"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { JobId } from "@mds/shared/ids/Ids"
import { Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { JobViewCache } from "./JobViewCache.ts"

const isJobId = Schema.is(JobId)

/** The recording of the key's project is asked to stop: 202 with the job, still processing until its run completes it. */
export const stopJob = Effect.fn("stopJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const { state, lastSeq } = yield* stopRecording(principal.projectId, jobId)
  // Read-your-writes: this gateway's next read of the job answers what it just wrote, not an older cached view.
  ;(yield* JobViewCache).seed({ ...state, lastSeq })
  return json(202, toJobResponse(state, null))
})

// GET /v1/jobs/:jobId: the job of the key's own project, while it is visible, with a download link once completed.
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { isJobVisible } from "@mds/shared/domain/job/JobView"
import { JobId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Option, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { loadJobView } from "./loadJobView.ts"
import { answeredBefore, rememberAnswer } from "./JobAnswers.ts"
import { toJobResponse } from "./JobResponse.ts"

const isJobId = Schema.is(JobId)

// Untraced, like every step of a job read: it runs from memory; the request span covers it (a traced step costs ~6 µs).
export const getJob = Effect.fnUntraced(function*(input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  // A malformed id cannot name a job; it never reaches a subject name.
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const now = yield* Clock.currentTimeMillis
  // Jobs live under their project's subjects, so another project's job is simply not found here.
  const view = yield* loadJobView(principal.projectId, jobId)
  if (Option.isNone(view) || !isJobVisible(view.value, now)) return yield* new JobNotFound({ jobId })
  const doc = view.value
  const answered = answeredBefore(doc)
  if (answered !== undefined) return json(200, answered)
  let downloadUrl: string | null = null
  if (doc.status === "completed" && doc.artifact !== null) {
    downloadUrl = doc.downloadUrl ?? (yield* (yield* ArtifactStore).presign(doc.artifact.key, {
      expiresAt: doc.artifact.availableUntil,
      filename: doc.artifact.filename
    }))
  }
  return json(200, rememberAnswer(doc, toJobResponse(doc, downloadUrl)))
})

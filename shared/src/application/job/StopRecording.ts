// Extension: a client's stop of a live recording (POST /v1/jobs/{jobId}/stop): recorded on the job; the run that
// records it sees it (JobCancelWatch), ends yt-dlp so that it keeps what it recorded, and completes the job.
import { Clock, Effect } from "effect"
import { JobNotFound } from "../../domain/DomainErrors.ts"
import { jobCommands } from "./JobCommands.ts"

/**
 * The decider judges from the job's own events (another project's job is an empty subject, so not found): a recording
 * is asked to stop, one asked already stays so (idempotent), any other job is refused (JobNotLive). Returns the job's state and the sequence of its last event.
 */
export const stopRecording = Effect.fn("stopRecording")(function* (projectId: string, jobId: string) {
  const now = yield* Clock.currentTimeMillis
  const { state, lastSeq } = yield* jobCommands(projectId, jobId)({ _tag: "StopRecording", jobId, now })
  if (state === null) return yield* new JobNotFound({ jobId })
  return { state, lastSeq }
})

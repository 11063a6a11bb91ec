// A job queued or processing past its lifetime, as the expiry sweeper ends it: JobExpired, and its slot given back.
import { Clock, Effect } from "effect"
import { releaseSlot } from "../admission/AdmissionCommands.ts"
import { jobStatus, retriesOf } from "../../domain/job/JobState.ts"
import { jobCommands } from "./JobCommands.ts"

/** Both writes are no-ops when already made (the decider's ExpireJob, a release of a free slot): sweepers may repeat it. */
export const expireJob = Effect.fn("expireJob")(function* (projectId: string, jobId: string) {
  const now = yield* Clock.currentTimeMillis
  const { state } = yield* jobCommands(projectId, jobId)({ _tag: "ExpireJob", jobId, now })
  // The slot stops counting at the same instant; its release drops it from the list. A job that ended otherwise
  // meanwhile (completed just before its end) leaves its slot to its releaser, who counts its bytes.
  if (jobStatus(state) === "expired") yield* releaseSlot(projectId, jobId, "expired", 0, { retry: retriesOf(state) })
})

// A job's current view for the gateway's use cases: served from the in-process job view cache (read-your-writes included).
import { Effect } from "effect"
import { JobViewCache } from "./JobViewCache.ts"

export const loadJobView = Effect.fn("loadJobView")(function*(projectId: string, jobId: string) {
  const cache = yield* JobViewCache
  return yield* cache.get(projectId, jobId)
})

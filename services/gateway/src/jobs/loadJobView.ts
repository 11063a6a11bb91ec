// A job's current view for the gateway's use cases: served from the in-process job view cache (read-your-writes included).
import { Effect } from "effect"
import { JobViewCache } from "./JobViewCache.ts"

// Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
export const loadJobView = Effect.fnUntraced(function* (projectId: string, jobId: string) {
  const cache = yield* JobViewCache
  return yield* cache.get(projectId, jobId)
})

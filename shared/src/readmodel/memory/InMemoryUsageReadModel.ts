// The usage read model kept in process memory: for tests; it passes the same contract suite as the KV and MongoDB adapters.
import { Effect, Layer } from "effect"
import type { JobUsage } from "../../domain/usage/JobUsage.ts"
import { UsageReadModel } from "../UsageReadModel.ts"

export const makeInMemoryUsageReadModel = () => {
  const jobs = new Map<string, JobUsage>()
  const keyOf = (projectId: string, jobId: string) => `${projectId}\u0000${jobId}`
  return UsageReadModel.of({
    record: (usage) =>
      Effect.sync(() => {
        const key = keyOf(usage.projectId, usage.jobId)
        if ((jobs.get(key)?.lastSeq ?? -1) <= usage.lastSeq) jobs.set(key, usage)
      }),
    listDays: (projectId, fromDay, toDay) =>
      Effect.sync(() => [...jobs.values()].filter((u) => u.projectId === projectId && u.day >= fromDay && u.day <= toDay))
  })
}

export const InMemoryUsageReadModel = { layer: Layer.sync(UsageReadModel, makeInMemoryUsageReadModel) }

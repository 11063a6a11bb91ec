// The usage read model kept in process memory: for tests; the same counted documents as the KV and MongoDB adapters,
// on maps with a version per document, under the same contract suite.
import { Effect, Layer } from "effect"
import type { JobUsage } from "../../domain/usage/JobUsage.ts"
import { countedUsage, type UsageDayDocument, type UsageDocuments, type Versioned } from "../CountedUsage.ts"
import { UsageReadModel } from "../UsageReadModel.ts"

/** A map whose writes succeed only over the version read (null: nothing stored). */
const versionedMap = <A>() => {
  const entries = new Map<string, Versioned<A>>()
  return {
    entries,
    get: (key: string) => Effect.sync(() => entries.get(key) ?? null),
    put: (key: string, value: A, expected: number | null) =>
      Effect.sync(() => {
        const current = entries.get(key)?.version ?? null
        if (current !== expected) return null
        const version = (current ?? 0) + 1
        entries.set(key, { value, version })
        return version
      })
  }
}

export const makeInMemoryUsageDocuments = (): UsageDocuments => {
  const days = versionedMap<UsageDayDocument>()
  const jobs = versionedMap<JobUsage>()
  return {
    getDay: (projectId, day) => days.get(`${projectId}\u0000${day}`),
    putDay: (doc, expected) => days.put(`${doc.projectId}\u0000${doc.day}`, doc, expected),
    getJob: (projectId, jobId) => jobs.get(`${projectId}\u0000${jobId}`),
    putJob: (usage, expected) => jobs.put(`${usage.projectId}\u0000${usage.jobId}`, usage, expected),
    listDays: (projectId, fromDay, toDay) =>
      Effect.sync(() =>
        [...days.entries.values()]
          .map((entry) => entry.value)
          .filter((doc) => doc.projectId === projectId && doc.day >= fromDay && doc.day <= toDay)
      )
  }
}

export const makeInMemoryUsageReadModel = () => countedUsage(makeInMemoryUsageDocuments())

export const InMemoryUsageReadModel = { layer: Layer.sync(UsageReadModel, makeInMemoryUsageReadModel) }

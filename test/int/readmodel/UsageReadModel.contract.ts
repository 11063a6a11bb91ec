// Behaviour every UsageReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type { JobUsage } from "@mds/shared/domain/usage/JobUsage"
import { newId } from "@mds/shared/ids/Ids"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"

export const jobUsage = (projectId: string, overrides: Partial<JobUsage> = {}): JobUsage => ({
  projectId,
  jobId: newId("job"),
  day: "2026-11-20",
  status: "queued",
  platform: "vimeo",
  errorCode: null,
  bytes: 0,
  lastSeq: 1,
  ...overrides
})

const byJob = (a: JobUsage, b: JobUsage) => a.jobId.localeCompare(b.jobId)
const sorted = (usage: ReadonlyArray<JobUsage>) => [...usage].sort(byJob)

export const usageReadModelContract = (name: string, adapter: Layer.Layer<UsageReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`UsageReadModel contract: ${name}`, (it) => {
    it.effect("lists the project's jobs of the days asked for, inclusive, and no other project's", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const before = jobUsage(projectId, { day: "2026-11-19" })
        const first = jobUsage(projectId, { day: "2026-11-20" })
        const second = jobUsage(projectId, { day: "2026-11-20", platform: "generic" })
        const last = jobUsage(projectId, { day: "2026-11-22", status: "completed", bytes: 1_000 })
        const after = jobUsage(projectId, { day: "2026-11-23" })
        const other = jobUsage(newId("prj"), { day: "2026-11-20" })
        for (const usage of [before, first, second, last, after, other]) yield* store.record(usage)
        assert.deepStrictEqual(sorted(yield* store.listDays(projectId, "2026-11-20", "2026-11-22")), sorted([first, second, last]))
        assert.deepStrictEqual(yield* store.listDays(newId("prj"), "2026-11-01", "2026-11-30"), [])
      })
    )

    it.effect("a job's usage is replaced by a later one and never by an older one", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const queued = jobUsage(projectId, { lastSeq: 3 })
        const failed: JobUsage = { ...queued, status: "failed", errorCode: "download_failed", lastSeq: 9 }
        yield* store.record(queued)
        yield* store.record(failed)
        yield* store.record(queued)
        assert.deepStrictEqual(yield* store.listDays(projectId, queued.day, queued.day), [failed])
      })
    )

    it.effect("writes of many jobs of one day at once all land", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const jobs = Array.from({ length: 20 }, (_, i) => jobUsage(projectId, { bytes: i }))
        yield* Effect.forEach(jobs, (usage) => store.record(usage), { concurrency: 8, discard: true })
        assert.deepStrictEqual(sorted(yield* store.listDays(projectId, "2026-11-20", "2026-11-20")), sorted(jobs))
      })
    )
  })

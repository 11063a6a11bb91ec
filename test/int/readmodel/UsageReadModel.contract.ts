// Behaviour every UsageReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import type { JobUsage } from "@mds/shared/domain/usage/JobUsage"
import { type PlatformCounts, type UsageDayCounts, noUsage, withJobChange } from "@mds/shared/domain/usage/UsageDayCounts"
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

/** What the counters of each day must be: the jobs' current usage, summed. */
export const countedDays = (jobs: ReadonlyArray<JobUsage>): ReadonlyArray<UsageDayCounts> => {
  const days = new Map<string, UsageDayCounts>()
  for (const job of jobs) days.set(job.day, withJobChange(days.get(job.day) ?? noUsage(job.projectId, job.day), null, job))
  return byDay([...days.values()])
}

export const byDay = (days: ReadonlyArray<UsageDayCounts>) => [...days].sort((a, b) => a.day.localeCompare(b.day))

const zero: PlatformCounts = { queued: 0, processing: 0, completed: 0, failed: 0, expired: 0, canceled: 0, bytes: 0 }

export const usageReadModelContract = (name: string, adapter: Layer.Layer<UsageReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`UsageReadModel contract: ${name}`, (it) => {
    it.effect("gives the counters of the project's days asked for, inclusive, and no other project's", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const before = jobUsage(projectId, { day: "2026-11-19" })
        const first = jobUsage(projectId, { day: "2026-11-20" })
        const second = jobUsage(projectId, { day: "2026-11-20", platform: "generic", status: "failed", errorCode: "download_failed" })
        const last = jobUsage(projectId, { day: "2026-11-22", status: "completed", bytes: 1_000 })
        const after = jobUsage(projectId, { day: "2026-11-23" })
        const other = jobUsage(newId("prj"), { day: "2026-11-20" })
        for (const usage of [before, first, second, last, after, other]) yield* store.record(usage)
        assert.deepStrictEqual(byDay(yield* store.listDays(projectId, "2026-11-20", "2026-11-22")), countedDays([first, second, last]))
        assert.deepStrictEqual(yield* store.listDays(newId("prj"), "2026-11-01", "2026-11-30"), [])
      })
    )

    it.effect("moves a job from status to status; a repeated change and an older one count nothing", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const queued = jobUsage(projectId, { lastSeq: 3 })
        const failed: JobUsage = { ...queued, status: "failed", errorCode: "download_failed", lastSeq: 9 }
        yield* store.record(queued)
        yield* store.record(queued)
        yield* store.record(failed)
        yield* store.record(failed)
        yield* store.record(queued)
        const [day] = yield* store.listDays(projectId, queued.day, queued.day)
        assert.deepStrictEqual(day?.platforms, { vimeo: { ...zero, failed: 1 } })
        assert.deepStrictEqual(day?.errors, { download_failed: 1 })
        assert.deepStrictEqual(day?.examples, { download_failed: [{ jobId: queued.jobId, seq: 9 }] })
      })
    )

    it.effect("writes of many jobs of one day at once, each twice, all land once", () =>
      Effect.gen(function* () {
        const store = yield* UsageReadModel
        const projectId = newId("prj")
        const jobs = Array.from({ length: 20 }, (_, i) => jobUsage(projectId, { status: "completed", bytes: i }))
        yield* Effect.forEach([...jobs, ...jobs], (usage) => store.record(usage), { concurrency: 8, discard: true })
        assert.deepStrictEqual(byDay(yield* store.listDays(projectId, "2026-11-20", "2026-11-20")), countedDays(jobs))
      })
    )
  })

// Extension: a batch as /v1 shows it, folded from its events.
import type { Batch } from "@mds/shared/api/Batches"
import { BatchDecider } from "@mds/shared/domain/batch/BatchDecider"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { isBatchDone, progressOf } from "@mds/shared/domain/batch/BatchState"
import { BatchNotFound } from "@mds/shared/domain/batch/BatchDecider"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { batchSubject } from "@mds/shared/eventstore/Subjects"
import { Effect } from "effect"

const iso = (ms: number) => new Date(ms).toISOString()

const ENTRY_EXPIRED = { code: "expired", message: "The batch ended (expires_at) before this entry could be started." } as const

export const loadBatchView = Effect.fn("loadBatchView")(function* (projectId: string, batchId: string) {
  const stored = yield* (yield* EventStore).readSubject(BatchEvent, batchSubject(projectId, batchId))
  const created = stored.find((item) => item.event._tag === "BatchCreated")?.event
  if (created === undefined || created._tag !== "BatchCreated") return yield* new BatchNotFound({ batchId })
  const state = stored.reduce((s, item) => BatchDecider.evolve(s, item.event), BatchDecider.initialState())
  const entries = state.entries.map((entry) => {
    const progress = progressOf(state, entry.entryId)
    const shown = { id: entry.entryId, title: entry.title, url: entry.url }
    switch (progress._tag) {
      case "Pending":
        return { ...shown, status: "pending" as const }
      case "Queued":
        return { ...shown, status: "queued" as const, job_id: progress.jobId }
      case "Finished":
        return { ...shown, status: progress.outcome, job_id: progress.jobId }
      case "Expired":
        return { ...shown, status: "failed" as const, error: ENTRY_EXPIRED }
    }
  })
  const count = (status: string) => entries.filter((entry) => entry.status === status).length
  const view: Batch = {
    id: batchId,
    status: state.status === "canceled" ? "canceled" : isBatchDone(state) ? "completed" : "running",
    media_id: created.mediaId,
    format: created.format,
    created_at: iso(created.createdAt),
    expires_at: iso(created.expiresAt),
    progress: {
      total: entries.length,
      pending: count("pending"),
      queued: count("queued"),
      completed: count("completed"),
      failed: count("failed")
    },
    entries
  }
  return view
})

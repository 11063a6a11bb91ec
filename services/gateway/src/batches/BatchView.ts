// Extension: a batch as /v1 shows it, from the batch's read door.
import type { Batch } from "@mds/shared/api/Batches"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { BatchNotFound } from "@mds/shared/domain/batch/BatchDecider"
import { isBatchDone, progressOf } from "@mds/shared/domain/batch/BatchState"
import { formatIdOf } from "@mds/shared/domain/media/FormatId"
import { Effect } from "effect"

const iso = (ms: number) => new Date(ms).toISOString()

const ENTRY_EXPIRED = { code: "expired", message: "The batch ended (expires_at) before this entry could be started." } as const

export const loadBatchView = Effect.fn("loadBatchView")(function* (projectId: string, batchId: string) {
  const { state } = yield* currentBatch(projectId, batchId)
  const { recipe } = state
  if (recipe === null) return yield* new BatchNotFound({ batchId })
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
    media_id: recipe.mediaId,
    format: formatIdOf(recipe.format),
    created_at: iso(recipe.createdAt),
    expires_at: iso(state.expiresAt),
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

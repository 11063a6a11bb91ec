// Rebuild of the jobs read model a batch of delivered messages at a time: folded onto documents held in memory, each changed one written once.
import { Effect, Option } from "effect"
import { LRUCache } from "lru-cache"
import type { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import type { JobView } from "@mds/shared/domain/job/JobView"
import type { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { foldJobMessages, type JobMessage, parseJobSubject, withDownloadUrl } from "../jobs/JobDocumentFold.ts"
import { makeSubjectBloomFilter } from "./SubjectBloomFilter.ts"

/** 2 MiB: a few percent of needless reads at a few million dropped jobs. */
const DROPPED_FILTER_BITS = 1 << 24

export interface JobBatchLimits {
  /** Documents kept in memory between batches; the least recently used beyond this are dropped (they are stored). */
  readonly documents: number
  /** Reads and writes of the read model in flight at once. */
  readonly concurrency: number
}

/** One delivered message of the jobs stream. */
export interface DeliveredJobMessage extends JobMessage {
  readonly subject: string
}

/**
 * Relies on what an ordered consumer guarantees: every message of every subject, in stream order, each once. A
 * document held here is then the fold of everything delivered for its subject, so the events of a batch fold onto
 * it directly, without the live projection's reads of the stored document and of the subject's history.
 *
 * A document dropped from memory is read back from the store: it was written before it was dropped, and before the
 * switch only the rebuild writes there. After the switch the live aggregator writes there too; the read model's put
 * keeps a stored document of a later lastSeq, so neither writer moves a document backwards, and a document read
 * back ahead of the delivered events is left as it is by the fold (evolveJobView skips sequences at or below lastSeq).
 */
export const makeJobBatchProjector = (readModel: JobReadModel["Service"], artifacts: ArtifactStore["Service"], limits: JobBatchLimits) => {
  const linked = withDownloadUrl(artifacts)
  /** A subject neither held nor ever dropped has had nothing delivered yet: its fold starts from no document. */
  const dropped = makeSubjectBloomFilter(DROPPED_FILTER_BITS, 4)
  /**
   * Subject → its document as last written (`doc` null when it has none: no JobQueued seen). The least recently used
   * beyond the limit are dropped, and remembered as dropped, so they are read back when delivered again.
   */
  const documents = new LRUCache<string, { readonly doc: JobView | null }>({
    max: limits.documents,
    dispose: (_held, subject, reason) => {
      if (reason === "evict") dropped.add(subject)
    }
  })
  const withRetries = { times: 5 } as const

  const readBack = (subject: string, batch: Map<string, JobView | null>) => {
    const ids = parseJobSubject(subject)
    if (Option.isNone(ids)) return Effect.void
    return readModel.get(ids.value.projectId, ids.value.jobId).pipe(
      Effect.retry(withRetries),
      Effect.map((stored) => void batch.set(subject, Option.getOrNull(stored)))
    )
  }

  /** Folds and writes `messages` (in delivery order); done once every changed document is stored. */
  return Effect.fn("JobBatchProjector.project")(function*(messages: ReadonlyArray<DeliveredJobMessage>) {
    const bySubject = new Map<string, Array<DeliveredJobMessage>>()
    for (const message of messages) {
      const subjectMessages = bySubject.get(message.subject)
      if (subjectMessages === undefined) bySubject.set(message.subject, [message])
      else subjectMessages.push(message)
    }
    // The batch's documents, all held until its writes are done; the limit applies between batches.
    const batch = new Map<string, JobView | null>()
    const missing = [...bySubject.keys()].filter((subject) => !documents.has(subject) && dropped.mightContain(subject))
    yield* Effect.forEach(missing, (subject) => readBack(subject, batch), { concurrency: limits.concurrency, discard: true })

    const changed: Array<readonly [string, JobView, "first" | "again"]> = []
    for (const [subject, subjectMessages] of bySubject) {
      // Not a job subject: the live projection leaves it alone too.
      if (Option.isNone(parseJobSubject(subject))) continue
      const before = batch.has(subject) ? batch.get(subject) ?? null : documents.get(subject)?.doc ?? null
      const after = foldJobMessages(before, subjectMessages)
      batch.set(subject, before)
      // No document held (or read back) means none was stored: before the switch only this rebuild writes there.
      if (after !== null && after !== before) changed.push([subject, after, before === null ? "first" : "again"])
    }

    yield* Effect.forEach(
      changed,
      ([subject, doc, write]) =>
        linked(doc).pipe(
          Effect.tap(write === "first" ? readModel.putNew : readModel.put),
          Effect.retry(withRetries),
          // Held as stored, so a document dropped from memory reads back the same.
          Effect.map((stored) => void batch.set(subject, stored))
        ),
      { concurrency: limits.concurrency, discard: true }
    )

    // Set again in delivery order: the most recently used documents are the last dropped.
    for (const [subject, doc] of batch) documents.set(subject, { doc })
  })
}

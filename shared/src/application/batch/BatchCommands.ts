// Extension: the batch aggregate's command handler, bound once (`batchCommands(projectId, batchId)(command)`), and its state.
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { batchSubject } from "../../nats/Subjects.ts"
import { BatchDecider } from "../../domain/batch/BatchDecider.ts"
import { BatchEvent } from "../../domain/batch/BatchEvent.ts"

/**
 * An entry is queued once and finishes once per try of its job (retried once per try); the batch is created and
 * canceled once: the event names its append.
 */
const batchEventId = (event: BatchEvent): string => {
  switch (event._tag) {
    case "BatchEntryQueued":
      return `${event._tag}:${event.batchId}:${event.entryId}`
    case "BatchEntryFinished":
    case "BatchEntryRetried":
      return `${event._tag}:${event.batchId}:${event.entryId}:${event.retry ?? 0}`
    default:
      return `${event._tag}:${event.batchId}`
  }
}

const handleBatch = commandHandler({ decider: BatchDecider, codec: BatchEvent, msgId: batchEventId })

export const batchCommands = forSubject(handleBatch, batchSubject)

/** The batch's state and its subject's last sequence (status `none` before it was created). */
export const currentBatch = (projectId: string, batchId: string) =>
  replayAggregate(BatchDecider, BatchEvent, batchSubject(projectId, batchId))

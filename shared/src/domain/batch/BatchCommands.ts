// Extension: the batch aggregate's command handler, bound once (`batchCommands(projectId, batchId)(command)`), and its state.
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { batchSubject } from "../../eventstore/Subjects.ts"
import { BatchDecider } from "./BatchDecider.ts"
import { BatchEvent } from "./BatchEvent.ts"

/** An entry is queued once and finishes once; the batch is created and canceled once: the event names its append. */
const batchEventId = (event: BatchEvent): string => {
  switch (event._tag) {
    case "BatchEntryQueued":
    case "BatchEntryFinished":
      return `${event._tag}:${event.batchId}:${event.entryId}`
    default:
      return `${event._tag}:${event.batchId}`
  }
}

const handleBatch = commandHandler({ decider: BatchDecider, codec: BatchEvent, msgId: batchEventId })

export const batchCommands = forSubject(handleBatch, batchSubject)

/** The batch's state and its subject's last sequence (status `none` before it was created). */
export const currentBatch = (projectId: string, batchId: string) =>
  replayAggregate(BatchDecider, BatchEvent, batchSubject(projectId, batchId))

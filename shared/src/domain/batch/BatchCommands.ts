// Extension: the batch aggregate's command handler, bound once (`batchCommands(projectId, batchId)(command)`), and its state.
import { Effect } from "effect"
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { EventStore } from "../../eventstore/EventStore.ts"
import { batchSubject } from "../../eventstore/Subjects.ts"
import { foldEvents } from "../Decider.ts"
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

/** The batch's state and its subject's last sequence, folded from its subject (status `none` before it was created). */
export const currentBatch = Effect.fn("currentBatch")(function* (projectId: string, batchId: string) {
  const store = yield* EventStore
  const stored = yield* store.readSubject(BatchEvent, batchSubject(projectId, batchId))
  return {
    state: foldEvents(
      BatchDecider,
      stored.map((item) => item.event)
    ),
    lastSeq: stored.at(-1)?.seq ?? 0
  }
})

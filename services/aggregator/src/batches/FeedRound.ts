// Extension: one round of the batch feeder: read what the reaction needs, react, and carry out its commands.
import { Clock, Effect } from "effect"
import { type FeedTrigger, react } from "@mds/shared/domain/batch/BatchFeed"
import { isBatchDone } from "@mds/shared/domain/batch/BatchState"
import { carryOutFeedCommand } from "./FeedCommand.ts"
import { loadFeed } from "./FeedLoad.ts"

/** Rounds per wake-up: each acts on what the previous one changed (a canceled job ends, a freed slot is taken). */
const MAX_ROUNDS = 4

/**
 * Reacts to one wake-up of a batch until nothing is left to do (at most MAX_ROUNDS rounds). Returns whether the
 * batch is over for good: done, with nothing left to do, so that slot releases and reconciles can pass it by.
 */
export const feedBatch = Effect.fn("BatchFeeder.feed")(function* (
  projectId: string,
  batchId: string,
  trigger: FeedTrigger["_tag"],
  entryId: string | null = null
) {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = yield* Clock.currentTimeMillis
    const state = yield* loadFeed(projectId, batchId, now, entryId)
    if (state.batch.status === "none") return false
    const commands = react(state, { _tag: trigger, now })
    if (commands.length === 0) return isBatchDone(state.batch)
    let full = false
    for (const command of commands) {
      if (full && command._tag === "StartEntry") continue
      if (!(yield* carryOutFeedCommand(state.batch, command, now))) full = true
    }
  }
  return false
})

// Extension: the subscription aggregate's command handler, bound once (`subscriptionCommands(projectId, subscriptionId)(command)`), and its state.
import { Effect } from "effect"
import { type CommandCallOptions, commandHandler } from "../../eventstore/CommandHandler.ts"
import { subscriptionSubject } from "../../nats/Subjects.ts"
import { type SubscriptionCommand, SubscriptionDecider } from "../../domain/subscription/SubscriptionDecider.ts"
import { SubscriptionEvent } from "../../domain/subscription/SubscriptionEvent.ts"
import type { SubscriptionState } from "../../domain/subscription/SubscriptionState.ts"
import { SubscriptionStates } from "./SubscriptionStates.ts"

/**
 * Created and removed once; a check's record is named by its time; pause, resume, check-now and a settlement repeat
 * with other content, so each handled command gets its own id (the decider turns a repeat into nothing). So does a
 * check's plan: two runs of one check plan it at once, each from the feed as it read it; were the plan named by its due
 * time, the second run's append would pass for a duplicate of the first's (the stream deduplicates before it compares
 * sequences) and that run would follow a plan that was never recorded. With its own id it conflicts, reads the first
 * run's plan and follows it.
 */
const subscriptionEventId = (event: SubscriptionEvent, index: number, invocation: () => string): string => {
  switch (event._tag) {
    case "SubscriptionCreated":
    case "SubscriptionRemoved":
      return `${event._tag}:${event.subscriptionId}`
    case "SubscriptionChecked":
    case "SubscriptionCheckFailed":
    case "SubscriptionFailing":
      return `${event._tag}:${event.subscriptionId}:${event.at}`
    case "SubscriptionEntriesQueued":
      return `${event._tag}:${event.subscriptionId}:${event.batchId}`
    default:
      return `${event._tag}:${invocation()}:${index}`
  }
}

const handleSubscription = commandHandler({ decider: SubscriptionDecider, codec: SubscriptionEvent, msgId: subscriptionEventId })

/**
 * The subscription's state and its subject's last sequence (null before it was created): its snapshot and the events
 * after (SubscriptionStates); with `uptoSeq`, as it was right after its event at that stream sequence.
 */
export const currentSubscription = (projectId: string, subscriptionId: string, options?: { readonly uptoSeq?: number }) =>
  Effect.flatMap(SubscriptionStates, (states) => states.current(projectId, subscriptionId, options))

/** Decides on the subscription's state as SubscriptionStates reads it (its snapshot and the events after), then appends. */
export const subscriptionCommands =
  (projectId: string, subscriptionId: string) => (command: SubscriptionCommand, options?: CommandCallOptions<SubscriptionState>) =>
    Effect.flatMap(SubscriptionStates, (states) =>
      handleSubscription(subscriptionSubject(projectId, subscriptionId), command, {
        ...options,
        load: states.current(projectId, subscriptionId)
      })
    )

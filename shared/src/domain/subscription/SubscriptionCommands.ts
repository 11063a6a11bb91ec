// Extension: the subscription aggregate's command handler, bound once (`subscriptionCommands(projectId, subscriptionId)(command)`), and its state.
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { subscriptionSubject } from "../../eventstore/Subjects.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import { SubscriptionEvent } from "./SubscriptionEvent.ts"

/**
 * Created and removed once; a check's events are named by the check's time; pause, resume and check-now repeat with
 * the same content, so each handled command gets its own id.
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

export const subscriptionCommands = forSubject(handleSubscription, subscriptionSubject)

/** The subscription's state and its subject's last sequence (null before it was created). */
export const currentSubscription = (projectId: string, subscriptionId: string) =>
  replayAggregate(SubscriptionDecider, SubscriptionEvent, subscriptionSubject(projectId, subscriptionId))

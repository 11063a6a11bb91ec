// The webhook commands: configure and remove a project's endpoint (its aggregate's handler, bound once), and ask
// for a delivery to be sent again.
import { Effect, Result } from "effect"
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { EventStore } from "../../eventstore/EventStore.ts"
import { webhookConfigSubject, webhookDeliverySubject, webhookRedeliverSubject } from "../../eventstore/Subjects.ts"
import { decideRedelivery, latestAttempt, redeliveryMsgId } from "./Redelivery.ts"
import { WebhookDecider } from "./WebhookDecider.ts"
import { WebhookConfigEvent, WebhookDeliveryAttempted, WebhookRedeliveryRequested } from "./WebhookEvent.ts"

/** Every configuration has its own webhook id; a removal is told apart by its time. */
const handleWebhook = commandHandler({
  decider: WebhookDecider,
  codec: WebhookConfigEvent,
  // Each event carries the whole endpoint.
  hydrate: "last",
  msgId: (event) =>
    event._tag === "WebhookConfigured" ? `${event._tag}:${event.webhookId}` : `${event._tag}:${event.projectId}:${event.at}`
})

export const webhookCommands = forSubject(handleWebhook, webhookConfigSubject)

/**
 * Asks the dispatcher to send a delivery again (decided from its latest attempt in the project's log). The request is
 * appended once per ended series of attempts, so a double click asks once.
 */
export const requestRedelivery = Effect.fn("requestRedelivery")(function* (projectId: string, deliveryId: string, now: number) {
  const store = yield* EventStore
  const log = yield* store.readSubject(WebhookDeliveryAttempted, webhookDeliverySubject(projectId))
  const decided = decideRedelivery(
    { _tag: "RequestRedelivery", projectId, deliveryId, now },
    latestAttempt(
      log.map((stored) => stored.event),
      deliveryId
    )
  )
  if (Result.isFailure(decided)) return yield* decided.failure
  yield* store.append(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId), decided.success, {
    msgId: redeliveryMsgId(decided.success)
  })
  return decided.success
})

// The webhook commands: configure and remove a project's endpoint, and ask for a delivery to be sent again (each
// aggregate's handler bound once); and the endpoint's read door.
import { Effect, Result } from "effect"
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { webhookConfigSubject, webhookRedeliverSubject } from "../../nats/Subjects.ts"
import { latestAttempt, RedeliveryDecider, redeliveryMsgId, redeliveryOf, requestedAfter } from "../../domain/webhook/Redelivery.ts"
import { WebhookDecider } from "../../domain/webhook/WebhookDecider.ts"
import { WebhookConfigEvent, WebhookRedeliveryRequested } from "../../domain/webhook/WebhookEvent.ts"
import { currentDeliveryLog } from "./DeliveryFacts.ts"

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

/** The project's endpoint as configured now (null: none); each event carries the whole endpoint, so only the last is read. */
export const currentWebhook = (projectId: string) =>
  replayAggregate(WebhookDecider, WebhookConfigEvent, webhookConfigSubject(projectId), { last: true })

/** One request per ended series of attempts, appended expecting the project's requests as read. */
const handleRedelivery = commandHandler({ decider: RedeliveryDecider, codec: WebhookRedeliveryRequested, msgId: redeliveryMsgId })

/**
 * Asks the dispatcher to send a delivery again, decided from its latest attempt in the project's log and the requests
 * already recorded: asking twice after the same attempt (a double click) asks once, and answers that one request.
 */
export const requestRedelivery = Effect.fn("requestRedelivery")(function* (projectId: string, deliveryId: string, now: number) {
  const { state: log } = yield* currentDeliveryLog(projectId)
  const command = { _tag: "RequestRedelivery", projectId, deliveryId, now, latest: latestAttempt(log, deliveryId) } as const
  const allowed = redeliveryOf(command)
  if (Result.isFailure(allowed)) return yield* allowed.failure
  const { state } = yield* handleRedelivery(webhookRedeliverSubject(projectId), command)
  return requestedAfter(state, deliveryId, allowed.success.afterAttemptAt) ?? allowed.success
})

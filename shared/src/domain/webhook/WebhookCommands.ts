// The webhook-endpoint aggregate's command handler, bound once: configure and remove a project's endpoint.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { webhookConfigSubject } from "../../eventstore/Subjects.ts"
import { WebhookDecider } from "./WebhookDecider.ts"
import { WebhookConfigEvent } from "./WebhookEvent.ts"

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

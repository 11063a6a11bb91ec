// The admin CLI's webhook commands (extension): set a project's endpoint (prints its signing secret), remove it,
// show the delivery log.
import { currentProject } from "@mds/shared/application/account/AccountCommands"
import { ProjectNotFound } from "@mds/shared/domain/DomainErrors"
import { webhookCommands } from "@mds/shared/application/webhook/WebhookCommands"
import type { WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"
import { webhookSecret, WebhookServerSecret } from "@mds/shared/application/webhook/WebhookSignature"
import { randomBytes } from "node:crypto"
import { Clock, Effect, Redacted } from "effect"
import { readDeliveryLog } from "../webhooks/listDeliveries.ts"

export type WebhookCommand =
  | { readonly _tag: "SetWebhook"; readonly projectId: string; readonly url: string; readonly events: ReadonlyArray<WebhookEventType> }
  | { readonly _tag: "RemoveWebhook"; readonly projectId: string }
  | { readonly _tag: "ListDeliveries"; readonly projectId: string; readonly limit: number }

const requireProject = Effect.fn("requireProject")(function* (projectId: string) {
  const { state } = yield* currentProject(projectId)
  if (!state.exists) return yield* new ProjectNotFound({ projectId })
})

/** Returns what the command prints: the new secret, nothing, or one JSON line per delivery attempt. */
export const runWebhookCommand = Effect.fn("runWebhookCommand")(function* (command: WebhookCommand) {
  yield* requireProject(command.projectId)
  const now = yield* Clock.currentTimeMillis
  switch (command._tag) {
    case "SetWebhook": {
      // A new id for every configuration: setting the endpoint again rotates its secret.
      const webhookId = `whk_${randomBytes(12).toString("hex")}`
      yield* webhookCommands(command.projectId)({
        _tag: "ConfigureWebhook",
        projectId: command.projectId,
        webhookId,
        url: command.url,
        events: command.events,
        now
      })
      const serverSecret = yield* WebhookServerSecret
      return webhookSecret(Redacted.value(serverSecret), command.projectId, webhookId)
    }
    case "RemoveWebhook":
      yield* webhookCommands(command.projectId)({ _tag: "RemoveWebhook", projectId: command.projectId, now })
      return ""
    case "ListDeliveries": {
      const deliveries = yield* readDeliveryLog(command.projectId, command.limit)
      return deliveries.map((delivery) => JSON.stringify(delivery)).join("\n")
    }
  }
})

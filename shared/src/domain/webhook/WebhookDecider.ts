// A project's webhook endpoint: configured (replacing any previous one) or removed.
import { Result, Schema } from "effect"
import type { Decider } from "../Decider.ts"
import type { WebhookConfigEvent, WebhookEventType } from "./WebhookEvent.ts"

export class WebhookNotConfigured extends Schema.TaggedError<WebhookNotConfigured>()("WebhookNotConfigured", {
  projectId: Schema.String
}) {}

export interface WebhookEndpoint {
  readonly webhookId: string
  readonly url: string
  readonly events: ReadonlyArray<WebhookEventType>
}

export type WebhookState = { readonly endpoint: WebhookEndpoint | null }

export type WebhookCommand =
  | {
      readonly _tag: "ConfigureWebhook"
      readonly projectId: string
      readonly webhookId: string
      readonly url: string
      readonly events: ReadonlyArray<WebhookEventType>
      readonly now: number
    }
  | { readonly _tag: "RemoveWebhook"; readonly projectId: string; readonly now: number }

export const initialWebhookState = (): WebhookState => ({ endpoint: null })

export const evolveWebhook = (_state: WebhookState, event: WebhookConfigEvent): WebhookState =>
  event._tag === "WebhookConfigured"
    ? { endpoint: { webhookId: event.webhookId, url: event.url, events: event.events } }
    : { endpoint: null }

export const decideWebhook = (
  command: WebhookCommand,
  state: WebhookState
): Result.Result<ReadonlyArray<WebhookConfigEvent>, WebhookNotConfigured> => {
  switch (command._tag) {
    case "ConfigureWebhook":
      return Result.succeed([
        {
          _tag: "WebhookConfigured",
          v: 1,
          projectId: command.projectId,
          webhookId: command.webhookId,
          url: command.url,
          events: [...command.events],
          at: command.now
        }
      ])
    case "RemoveWebhook":
      return state.endpoint === null
        ? Result.fail(new WebhookNotConfigured({ projectId: command.projectId }))
        : Result.succeed([{ _tag: "WebhookRemoved", v: 1, projectId: command.projectId, at: command.now }])
  }
}

export const WebhookDecider: Decider<WebhookCommand, WebhookConfigEvent, WebhookState, WebhookNotConfigured> = {
  initialState: initialWebhookState,
  evolve: evolveWebhook,
  decide: decideWebhook
}

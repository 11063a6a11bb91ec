// A project's webhook delivery log as a state: every attempt it keeps, oldest first (one event per attempt).
import type { Evolver } from "../Decider.ts"
import type { WebhookDeliveryAttempted } from "./WebhookEvent.ts"

export type DeliveryLog = ReadonlyArray<WebhookDeliveryAttempted>

export const DeliveryLogFold: Evolver<WebhookDeliveryAttempted, DeliveryLog> = {
  initialState: () => [],
  evolve: (log, attempt) => [...log, attempt]
}

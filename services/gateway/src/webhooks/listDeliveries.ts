// GET /v1/webhooks/deliveries (extension): the key's project's latest webhook delivery attempts, newest first.
import { toWebhookDelivery } from "@mds/shared/api/WebhookDeliveries"
import { currentDeliveryLog } from "@mds/shared/application/webhook/DeliveryFacts"
import { Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidRequest } from "../http/GatewayErrors.ts"
import { json, type RouteInput } from "../http/Route.ts"

export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 1000

const parseLimit = (raw: unknown): Effect.Effect<number, InvalidRequest> => {
  if (raw === undefined) return Effect.succeed(DEFAULT_LIMIT)
  const limit = typeof raw === "string" && /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN
  return limit >= 1 && limit <= MAX_LIMIT
    ? Effect.succeed(limit)
    : Effect.fail(new InvalidRequest({ message: `limit: must be an integer from 1 to ${MAX_LIMIT}.` }))
}

/** The log of one project, newest first (the stream keeps its last attempts; see WEBHOOK_LOG_LIMIT). */
export const readDeliveryLog = Effect.fn("readDeliveryLog")(function* (projectId: string, limit: number) {
  const { state: log } = yield* currentDeliveryLog(projectId)
  return log.slice(-limit).reverse().map(toWebhookDelivery)
})

export const listDeliveries = Effect.fn("listDeliveries")(function* (input: RouteInput, principal: Principal) {
  const limit = yield* parseLimit(input.query["limit"])
  return json(200, yield* readDeliveryLog(principal.projectId, limit))
})

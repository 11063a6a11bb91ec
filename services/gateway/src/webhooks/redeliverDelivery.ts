// Extension, POST /v1/webhooks/deliveries/:deliveryId/redeliver: send one of the key's project's job deliveries again.
import { toWebhookRedelivery } from "@mds/shared/api/WebhookDeliveries"
import { requestRedelivery } from "@mds/shared/application/webhook/WebhookCommands"
import { DeliveryId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidRequest } from "../http/GatewayErrors.ts"
import { json, type RouteInput } from "../http/Route.ts"

const isDeliveryId = Schema.is(DeliveryId)

/**
 * The same command as the dashboard's Redeliver button (`requestRedelivery`), judged from the project's own delivery
 * log: another project's delivery is not in it, so it is not found.
 */
export const redeliverDelivery = Effect.fn("redeliverDelivery")(function* (input: RouteInput, principal: Principal) {
  const deliveryId = input.params["deliveryId"] ?? ""
  if (!isDeliveryId(deliveryId)) {
    return yield* new InvalidRequest({
      message: "deliveryId: must be a delivery id (dlv_ and 24 hex digits, from GET /webhooks/deliveries)."
    })
  }
  const requested = yield* requestRedelivery(principal.projectId, deliveryId, yield* Clock.currentTimeMillis)
  return json(202, toWebhookRedelivery(requested))
})

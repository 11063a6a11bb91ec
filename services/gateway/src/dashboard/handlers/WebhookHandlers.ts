// A project's Webhooks tab: the delivery log (the same as GET /v1/webhooks/deliveries) and asking for a redelivery.
import { deliveryRows } from "@mds/shared/domain/webhook/DeliveryRows"
import { currentDeliveryLog } from "@mds/shared/application/webhook/DeliveryFacts"
import { currentWebhook, requestRedelivery } from "@mds/shared/application/webhook/WebhookCommands"
import { Clock, Effect } from "effect"
import { type DashboardInput, type Member, pageReply, requireMember } from "../DashboardRoute.ts"
import { webhooksPage } from "../pages/WebhookPages.ts"

/** Deliveries shown: the latest of the log (which keeps each project's last attempts). */
const SHOWN = 100

const render = Effect.fn("renderWebhooks")(function* ({ signedIn, project }: Member, error: string | null, notice: string | null) {
  const { state: log } = yield* currentDeliveryLog(project.projectId)
  const { endpoint } = (yield* currentWebhook(project.projectId)).state
  const rows = deliveryRows(log, (attempt) => attempt.deliveryId).slice(0, SHOWN)
  return pageReply(
    webhooksPage({ viewer: signedIn.viewer, project, rows, endpoint: endpoint?.url ?? null, error, notice }),
    error === null ? 200 : 400
  )
})

export const showWebhooks = Effect.fn("showWebhooks")(function* (input: DashboardInput) {
  return yield* render(yield* requireMember(input), null, null)
})

export const redeliver = Effect.fn("redeliver")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const deliveryId = input.params["deliveryId"] ?? ""
  const asked = yield* Effect.result(requestRedelivery(member.project.projectId, deliveryId, yield* Clock.currentTimeMillis))
  if (asked._tag === "Success") {
    return yield* render(member, null, `${asked.success.eventType} of ${asked.success.jobId} will be sent again in a moment.`)
  }
  switch (asked.failure._tag) {
    case "WebhookDeliveryNotFound":
      return yield* render(member, "This delivery is not in the log.", null)
    case "WebhookDeliveryPending":
      return yield* render(member, "This delivery is still being retried; it can be sent again once it ended.", null)
    default:
      return yield* Effect.fail(asked.failure)
  }
})

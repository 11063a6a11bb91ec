// A project's Webhooks tab: the delivery log (the same as GET /v1/webhooks/deliveries) and asking for a redelivery.
import { deliveryRows } from "@mds/shared/domain/webhook/DeliveryRows"
import { requestRedelivery } from "@mds/shared/domain/webhook/WebhookCommands"
import { WebhookDecider } from "@mds/shared/domain/webhook/WebhookDecider"
import { WebhookConfigEvent, WebhookDeliveryAttempted } from "@mds/shared/domain/webhook/WebhookEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { webhookConfigSubject, webhookDeliverySubject } from "@mds/shared/eventstore/Subjects"
import { Clock, Effect, Option } from "effect"
import { type DashboardInput, type Member, pageReply, requireMember } from "../DashboardRoute.ts"
import { webhooksPage } from "../pages/WebhookPages.ts"

/** Deliveries shown: the latest of the log (which keeps each project's last attempts). */
const SHOWN = 100

const render = Effect.fn("renderWebhooks")(function* ({ signedIn, project }: Member, error: string | null, notice: string | null) {
  const store = yield* EventStore
  const log = yield* store.readSubject(WebhookDeliveryAttempted, webhookDeliverySubject(project.projectId))
  const config = yield* store.readLast(WebhookConfigEvent, webhookConfigSubject(project.projectId))
  const endpoint = Option.match(config, {
    onNone: () => null,
    onSome: ({ event }) => WebhookDecider.evolve(WebhookDecider.initialState(), event).endpoint
  })
  const rows = deliveryRows(
    log.map((stored) => stored.event),
    (attempt) => attempt.deliveryId
  ).slice(0, SHOWN)
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

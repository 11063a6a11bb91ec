// A subscription made through its decider, as POST /v1/subscriptions makes it, for specs.
import { Effect } from "effect"
import { subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import type { SubscriptionFilters } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { newId } from "@mds/shared/ids/Ids"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

/** Creates a subscription of the project to `url` (audio_m4a, checked hourly), as POST /v1/subscriptions does; its id. */
export const createSubscription = (
  projectId: string,
  url: string,
  options: { readonly backfill?: number; readonly filters?: SubscriptionFilters; readonly now?: number } = {}
) =>
  Effect.gen(function* () {
    const subscriptionId = newId("sub")
    yield* subscriptionCommands(
      projectId,
      subscriptionId
    )({
      _tag: "CreateSubscription",
      subscriptionId,
      projectId,
      url,
      platform: "generic",
      format: parseFormatId("audio_m4a"),
      checkEveryMs: 3_600_000,
      filters: options.filters ?? {},
      backfill: options.backfill ?? 0,
      now: options.now ?? Date.now()
    })
    return subscriptionId
  })

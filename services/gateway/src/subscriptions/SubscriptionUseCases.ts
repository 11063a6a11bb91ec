// Extension: what a project can do with its subscriptions, whoever asks (the /v1 routes and the dashboard both call these).
import { checkRequestedDestination } from "../jobs/requestedDestination.ts"
import { type CreateSubscriptionRequest, publishedAfterMs } from "@mds/shared/api/Subscriptions"
import { FormatUnavailable } from "@mds/shared/domain/DomainErrors"
import { formatIdOf, isMediaFormat } from "@mds/shared/domain/media/FormatId"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import type { SubscriptionCommand } from "@mds/shared/domain/subscription/SubscriptionDecider"
import { SubscriptionNotFound } from "@mds/shared/domain/subscription/SubscriptionDecider"
import type { Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { newId, SubscriptionId } from "@mds/shared/ids/Ids"
import { listedSubscriptions, summaryOfView } from "@mds/shared/domain/subscription/SubscriptionListView"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { Clock, Effect, Schema } from "effect"
import { NotAPlaylist, SubscriptionLimitReached } from "../http/GatewayErrors.ts"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { requestedOptions } from "../jobs/requestedOptions.ts"
import { requestResolution, vetMediaUrl } from "../media/resolveMedia.ts"

const isSubscriptionId = Schema.is(SubscriptionId)
const DEFAULT_CHECK_EVERY_SECONDS = 3600

/** The subscription as it is now; removed ones, other projects' and malformed ids are not found. */
export const loadSubscription = Effect.fn("loadSubscription")(function* (projectId: string, subscriptionId: string) {
  if (!isSubscriptionId(subscriptionId)) return yield* new SubscriptionNotFound({ subscriptionId })
  const { state } = yield* currentSubscription(projectId, subscriptionId)
  if (state === null || state.removed) return yield* new SubscriptionNotFound({ subscriptionId })
  return state
})

/** A subscription as a command left it, and its subject's sequence then (the list has it once it folded that far). */
export interface SubscriptionWritten {
  readonly subscription: Subscription
  readonly lastSeq: number
}

/**
 * Refuses a subscription past the project's limit of live ones. Counted from the list read model: requests racing
 * within the moment before a new subscription shows there may pass the limit by the few that raced.
 */
const ensureBelowSubscriptionLimit = Effect.fn("ensureBelowSubscriptionLimit")(function* (projectId: string) {
  const limit = yield* (yield* ProjectQuotaReader).subscriptionLimitOf(projectId)
  if (limit === null) return
  const live = listedSubscriptions(yield* (yield* SubscriptionReadModel).listByProject(projectId)).length
  if (live >= limit) return yield* new SubscriptionLimitReached({ limit })
})

/** Follows a URL: resolved once as a playlist (with the project's cookies), so one that is not is refused now. */
export const subscribe = Effect.fn("subscribe")(function* (projectId: string, body: CreateSubscriptionRequest) {
  yield* ensureBelowSubscriptionLimit(projectId)
  const { url } = yield* vetMediaUrl("url", body.url)
  if (!isMediaFormat(body.format)) return yield* new FormatUnavailable({ format: formatIdOf(body.format), available: [] })
  const options = yield* requestedOptions(body)
  yield* checkRequestedDestination(projectId, options)
  const publishedAfter = body.filters?.published_after === undefined ? undefined : publishedAfterMs(body.filters.published_after)
  const playlist = yield* requestResolution(url.href, projectId, true)
  if (playlist.entries === undefined) return yield* new NotAPlaylist({ url: url.href })
  const subscriptionId = newId("sub")
  const now = yield* Clock.currentTimeMillis
  const filters = body.filters ?? {}
  const handled = yield* subscriptionCommands(projectId, subscriptionId)(
    {
      _tag: "CreateSubscription",
      subscriptionId,
      projectId,
      url: url.href,
      platform: playlist.platform,
      format: body.format,
      options,
      checkEveryMs: (body.check_every ?? DEFAULT_CHECK_EVERY_SECONDS) * 1000,
      filters: {
        ...(filters.title_contains === undefined ? {} : { titleContains: filters.title_contains }),
        ...(filters.min_duration === undefined ? {} : { minDurationSeconds: filters.min_duration }),
        ...(filters.max_duration === undefined ? {} : { maxDurationSeconds: filters.max_duration }),
        ...(publishedAfter === undefined ? {} : { publishedAfter })
      },
      backfill: body.backfill ?? 0,
      ...(body.retention === undefined
        ? {}
        : { retention: "keep_last" in body.retention ? { keepLast: body.retention.keep_last } : { keepDays: body.retention.keep_days } }),
      now
    },
    { isNew: true }
  )
  return { subscription: handled.state as Subscription, lastSeq: handled.lastSeq } satisfies SubscriptionWritten
})

/**
 * Every live subscription of the project, oldest first, from the list read model the aggregator keeps: one read per
 * subscription, however many checks it has had. A subscription shows up (or changes) there within moments of its write.
 */
export const projectSubscriptions = Effect.fn("projectSubscriptions")(function* (projectId: string) {
  return listedSubscriptions(yield* (yield* SubscriptionReadModel).listByProject(projectId)).map(summaryOfView)
})

export type SubscriptionChange = "PauseSubscription" | "ResumeSubscription" | "CheckNow"

/** Pauses, resumes or checks now a live subscription, and gives what it became. */
export const changeSubscription = Effect.fn("changeSubscription")(function* (
  projectId: string,
  subscriptionId: string,
  change: SubscriptionChange
) {
  yield* loadSubscription(projectId, subscriptionId)
  const now = yield* Clock.currentTimeMillis
  const command: SubscriptionCommand = { _tag: change, subscriptionId, now }
  const handled = yield* subscriptionCommands(projectId, subscriptionId)(command)
  return { subscription: handled.state as Subscription, lastSeq: handled.lastSeq } satisfies SubscriptionWritten
})

export const unsubscribe = Effect.fn("unsubscribe")(function* (projectId: string, subscriptionId: string) {
  yield* loadSubscription(projectId, subscriptionId)
  const now = yield* Clock.currentTimeMillis
  const handled = yield* subscriptionCommands(projectId, subscriptionId)({ _tag: "RemoveSubscription", subscriptionId, now })
  return { lastSeq: handled.lastSeq }
})

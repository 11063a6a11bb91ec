// Extension: what a project can do with its subscriptions, whoever asks (the /v1 routes and the dashboard both call these).
import type { CreateSubscriptionRequest } from "@mds/shared/api/Subscriptions"
import { FormatUnavailable } from "@mds/shared/domain/DomainErrors"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { currentSubscription, subscriptionCommands } from "@mds/shared/domain/subscription/SubscriptionCommands"
import type { SubscriptionCommand } from "@mds/shared/domain/subscription/SubscriptionDecider"
import { SubscriptionNotFound } from "@mds/shared/domain/subscription/SubscriptionDecider"
import type { Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { projectSubscriptionsSubject, SUBSCRIPTIONS_STREAM } from "@mds/shared/eventstore/Subjects"
import { newId, SubscriptionId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Clock, Effect, Schema } from "effect"
import { InvalidOptions, NotAPlaylist, ServiceUnavailable } from "../http/GatewayErrors.ts"
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

/** Follows a URL: resolved once as a playlist (with the project's cookies), so one that is not is refused now. */
export const subscribe = Effect.fn("subscribe")(function* (projectId: string, body: CreateSubscriptionRequest) {
  const { url } = yield* vetMediaUrl("url", body.url)
  if (parseFormatId(body.format)._tag === "None") return yield* new FormatUnavailable({ format: body.format, available: [] })
  const options = yield* requestedOptions(body)
  const publishedAfter = body.filters?.published_after === undefined ? undefined : Date.parse(body.filters.published_after)
  if (publishedAfter !== undefined && Number.isNaN(publishedAfter)) {
    return yield* new InvalidOptions({ message: "filters.published_after: not a date-time." })
  }
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
      now
    },
    { isNew: true }
  )
  return handled.state as Subscription
})

/** Every live subscription of the project, oldest first: its subjects in the stream, each folded (a project follows a handful). */
export const projectSubscriptions = Effect.fn("projectSubscriptions")(function* (projectId: string) {
  const { jsm } = yield* NatsClient
  const info = yield* Effect.tryPromise({
    try: () => jsm.streams.info(SUBSCRIPTIONS_STREAM.name, { subjects_filter: projectSubscriptionsSubject(projectId) }),
    catch: () => new ServiceUnavailable({ message: "Subscriptions cannot be listed right now; retry shortly." })
  })
  const ids = Object.keys(info.state.subjects ?? {}).map((subject) => subject.split(".")[3] ?? "")
  const states = yield* Effect.forEach(ids, (id) => currentSubscription(projectId, id), { concurrency: 8 })
  const live = states.flatMap(({ state }) => (state === null || state.removed ? [] : [state]))
  return live.sort((a, b) => a.createdAt - b.createdAt)
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
  return handled.state as Subscription
})

export const unsubscribe = Effect.fn("unsubscribe")(function* (projectId: string, subscriptionId: string) {
  yield* loadSubscription(projectId, subscriptionId)
  const now = yield* Clock.currentTimeMillis
  yield* subscriptionCommands(projectId, subscriptionId)({ _tag: "RemoveSubscription", subscriptionId, now })
})

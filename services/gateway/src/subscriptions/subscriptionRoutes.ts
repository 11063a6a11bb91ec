// Extension: /v1/subscriptions: create (the URL resolved once as a playlist), list, read, pause, resume, check now, remove.
import { CreateSubscriptionRequest } from "@mds/shared/api/Subscriptions"
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
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidOptions, ServiceUnavailable } from "../http/GatewayErrors.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { requestedOptions } from "../jobs/requestedOptions.ts"
import { requestResolution, vetMediaUrl } from "../media/resolveMedia.ts"
import { NotAPlaylist } from "./SubscriptionErrors.ts"
import { toSubscriptionBody } from "@mds/shared/api/SubscriptionView"

const isSubscriptionId = Schema.is(SubscriptionId)
const DEFAULT_CHECK_EVERY_SECONDS = 3600

const subscriptionIdOf = (input: RouteInput) => {
  const subscriptionId = input.params["subscriptionId"] ?? ""
  return isSubscriptionId(subscriptionId) ? Effect.succeed(subscriptionId) : Effect.fail(new SubscriptionNotFound({ subscriptionId }))
}

/** The subscription as it is now; removed ones (and other projects') are not found. */
const loadSubscription = Effect.fn("loadSubscription")(function* (projectId: string, subscriptionId: string) {
  const { state } = yield* currentSubscription(projectId, subscriptionId)
  if (state === null || state.removed) return yield* new SubscriptionNotFound({ subscriptionId })
  return state
})

export const createSubscription = Effect.fn("createSubscription")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(CreateSubscriptionRequest, input.body)
  const { url } = yield* vetMediaUrl("url", body.url)
  if (parseFormatId(body.format)._tag === "None") return yield* new FormatUnavailable({ format: body.format, available: [] })
  const options = yield* requestedOptions(body)
  const publishedAfter = body.filters?.published_after === undefined ? undefined : Date.parse(body.filters.published_after)
  if (publishedAfter !== undefined && Number.isNaN(publishedAfter)) {
    return yield* new InvalidOptions({ message: "filters.published_after: not a date-time." })
  }
  // Resolved once, with the project's cookies, so a URL that is no playlist is refused now rather than failing later.
  const playlist = yield* requestResolution(url.href, principal.projectId, true)
  if (playlist.entries === undefined) return yield* new NotAPlaylist({ url: url.href })
  const subscriptionId = newId("sub")
  const now = yield* Clock.currentTimeMillis
  const filters = body.filters ?? {}
  const handled = yield* subscriptionCommands(principal.projectId, subscriptionId)(
    {
      _tag: "CreateSubscription",
      subscriptionId,
      projectId: principal.projectId,
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
  return json(201, toSubscriptionBody(handled.state as Subscription))
})

/** Every live subscription of the project: its subjects in the stream, each folded (a project follows a handful). */
export const listSubscriptions = Effect.fn("listSubscriptions")(function* (_input: RouteInput, principal: Principal) {
  const { jsm } = yield* NatsClient
  const info = yield* Effect.tryPromise({
    try: () => jsm.streams.info(SUBSCRIPTIONS_STREAM.name, { subjects_filter: projectSubscriptionsSubject(principal.projectId) }),
    catch: () => new ServiceUnavailable({ message: "Subscriptions cannot be listed right now; retry shortly." })
  })
  const ids = Object.keys(info.state.subjects ?? {}).map((subject) => subject.split(".")[3] ?? "")
  const states = yield* Effect.forEach(ids, (id) => currentSubscription(principal.projectId, id), { concurrency: 8 })
  const live = states.flatMap(({ state }) => (state === null || state.removed ? [] : [state]))
  return json(200, live.sort((a, b) => a.createdAt - b.createdAt).map(toSubscriptionBody))
})

export const getSubscription = Effect.fn("getSubscription")(function* (input: RouteInput, principal: Principal) {
  return json(200, toSubscriptionBody(yield* loadSubscription(principal.projectId, yield* subscriptionIdOf(input))))
})

/** Runs a command on a live subscription and answers with what it became. */
const command = (tag: "PauseSubscription" | "ResumeSubscription" | "CheckNow", status: number) =>
  Effect.fn(`subscription.${tag}`)(function* (input: RouteInput, principal: Principal) {
    const subscriptionId = yield* subscriptionIdOf(input)
    yield* loadSubscription(principal.projectId, subscriptionId)
    const now = yield* Clock.currentTimeMillis
    const cmd: SubscriptionCommand = { _tag: tag, subscriptionId, now }
    const handled = yield* subscriptionCommands(principal.projectId, subscriptionId)(cmd)
    return json(status, toSubscriptionBody(handled.state as Subscription))
  })

export const pauseSubscription = command("PauseSubscription", 200)
export const resumeSubscription = command("ResumeSubscription", 200)
export const checkSubscription = command("CheckNow", 202)

export const removeSubscription = Effect.fn("removeSubscription")(function* (input: RouteInput, principal: Principal) {
  const subscriptionId = yield* subscriptionIdOf(input)
  yield* loadSubscription(principal.projectId, subscriptionId)
  const now = yield* Clock.currentTimeMillis
  yield* subscriptionCommands(principal.projectId, subscriptionId)({ _tag: "RemoveSubscription", subscriptionId, now })
  return json(200, { id: subscriptionId, removed: true })
})

// Extension: /v1/subscriptions: create (the URL resolved once as a playlist), list, read, pause, resume, check now, remove.
import { CreateSubscriptionRequest } from "@mds/shared/api/Subscriptions"
import { Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import {
  changeSubscription,
  loadSubscription,
  projectSubscriptions,
  type SubscriptionChange,
  subscribe,
  unsubscribe
} from "./SubscriptionUseCases.ts"
import { toSubscriptionBody } from "@mds/shared/api/SubscriptionView"

const subscriptionIdOf = (input: RouteInput) => input.params["subscriptionId"] ?? ""

export const createSubscription = Effect.fn("createSubscription")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(CreateSubscriptionRequest, input.body)
  return json(201, toSubscriptionBody((yield* subscribe(principal.projectId, body)).subscription))
})

export const listSubscriptions = Effect.fn("listSubscriptions")(function* (_input: RouteInput, principal: Principal) {
  return json(200, (yield* projectSubscriptions(principal.projectId)).map(toSubscriptionBody))
})

export const getSubscription = Effect.fn("getSubscription")(function* (input: RouteInput, principal: Principal) {
  return json(200, toSubscriptionBody(yield* loadSubscription(principal.projectId, subscriptionIdOf(input))))
})

/** Runs a command on a live subscription and answers with what it became. */
const command = (change: SubscriptionChange, status: number) =>
  Effect.fn(`subscription.${change}`)(function* (input: RouteInput, principal: Principal) {
    return json(status, toSubscriptionBody((yield* changeSubscription(principal.projectId, subscriptionIdOf(input), change)).subscription))
  })

export const pauseSubscription = command("PauseSubscription", 200)
export const resumeSubscription = command("ResumeSubscription", 200)
export const checkSubscription = command("CheckNow", 202)

export const removeSubscription = Effect.fn("removeSubscription")(function* (input: RouteInput, principal: Principal) {
  const subscriptionId = subscriptionIdOf(input)
  yield* unsubscribe(principal.projectId, subscriptionId)
  return json(200, { id: subscriptionId, removed: true })
})

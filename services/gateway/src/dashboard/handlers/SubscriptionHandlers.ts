// A project's subscriptions in the dashboard: list, add, pause, resume, check now, remove; the same use cases as /v1/subscriptions.
import type { Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { Effect, Option } from "effect"
import { type ApiFailure, internalError, toApiError } from "../../http/ErrorMapping.ts"
import {
  changeSubscription,
  projectSubscriptions,
  type SubscriptionChange,
  subscribe,
  unsubscribe
} from "../../subscriptions/SubscriptionUseCases.ts"
import { projectDestinations } from "../../destinations/DestinationUseCases.ts"
import { awaitProjection, type DashboardInput, type Member, pageReply, requireMember } from "../DashboardRoute.ts"
import { subscriptionsPage } from "../pages/SubscriptionPages.ts"
import {
  decodeSubscriptionForm,
  emptySubscriptionForm,
  prefilledSubscriptionForm,
  type SubscriptionFormValues,
  subscriptionFormValues
} from "../SubscriptionForm.ts"

/**
 * Read-your-writes: the list comes from the read model the aggregator keeps, so a page rendered after a write waits
 * (briefly) until the subscription's document has folded the write's events.
 */
const untilListed = (projectId: string, subscriptionId: string, lastSeq: number) =>
  Effect.flatMap(SubscriptionReadModel, (subscriptions) =>
    awaitProjection(
      Effect.map(subscriptions.get(projectId, subscriptionId), (view) => Option.isSome(view) && view.value.lastSeq >= lastSeq)
    )
  )

const render = Effect.fn("renderSubscriptions")(function* (
  { signedIn, project }: Member,
  outcome: { readonly error?: string; readonly notice?: string; readonly form?: SubscriptionFormValues }
) {
  const subscriptions = yield* projectSubscriptions(project.projectId)
  const destinations = (yield* projectDestinations(project.projectId)).map(({ destinationId, name }) => ({ destinationId, name }))
  const error = outcome.error ?? null
  return pageReply(
    subscriptionsPage({
      viewer: signedIn.viewer,
      project,
      subscriptions,
      destinations,
      form: outcome.form ?? emptySubscriptionForm,
      error,
      notice: outcome.notice ?? null
    }),
    error === null ? 200 : 400
  )
})

/**
 * A use case's refusal in the words /v1 gives it (one mapping), shown on the page; storage and other server-side
 * failures go on to the dashboard's error page.
 */
const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(effect, (failure) => {
    const tag = (failure as { readonly _tag?: string })._tag
    if (tag === "InvalidForm") return Effect.succeed({ refused: (failure as { readonly message: string }).message } as const)
    const api = toApiError(failure as ApiFailure) ?? internalError
    return api.status < 500 ? Effect.succeed({ refused: api.message } as const) : Effect.fail(failure)
  })

const refused = (outcome: unknown): outcome is { readonly refused: string } =>
  typeof outcome === "object" && outcome !== null && "refused" in outcome

/** `?url=` and `?format=` (the Download tab's "Follow this playlist") fill the add form in; subscribing stays a POST. */
export const showSubscriptions = Effect.fn("showSubscriptions")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return yield* render(member, { form: prefilledSubscriptionForm(input.query) })
})

export const addSubscription = Effect.fn("addSubscription")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const form = subscriptionFormValues(input.body)
  const created = yield* refusal(Effect.flatMap(decodeSubscriptionForm(form), (body) => subscribe(member.project.projectId, body)))
  if (refused(created)) return yield* render(member, { error: created.refused, form })
  yield* untilListed(member.project.projectId, created.subscription.subscriptionId, created.lastSeq)
  return yield* render(member, { notice: `Subscribed to ${created.subscription.url}; its first check runs now.` })
})

const NOTICES: Record<SubscriptionChange, (s: Subscription) => string> = {
  PauseSubscription: (s) => `${s.url} is paused.`,
  ResumeSubscription: (s) => `${s.url} is active again.`,
  CheckNow: (s) => `${s.url} is being checked now.`
}

const change = (what: SubscriptionChange) =>
  Effect.fn(`dashboard.${what}`)(function* (input: DashboardInput) {
    const member = yield* requireMember(input)
    const changed = yield* refusal(changeSubscription(member.project.projectId, input.params["subscriptionId"] ?? "", what))
    if (refused(changed)) return yield* render(member, { error: changed.refused })
    yield* untilListed(member.project.projectId, changed.subscription.subscriptionId, changed.lastSeq)
    return yield* render(member, { notice: NOTICES[what](changed.subscription) })
  })

export const pauseSubscription = change("PauseSubscription")
export const resumeSubscription = change("ResumeSubscription")
export const checkSubscriptionNow = change("CheckNow")

export const removeSubscription = Effect.fn("removeDashboardSubscription")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const subscriptionId = input.params["subscriptionId"] ?? ""
  const removed = yield* refusal(unsubscribe(member.project.projectId, subscriptionId))
  if (refused(removed)) return yield* render(member, { error: removed.refused })
  yield* untilListed(member.project.projectId, subscriptionId, removed.lastSeq)
  return yield* render(member, { notice: "The subscription is removed." })
})

// A project's destinations in the dashboard: list, add an S3 bucket, test, remove; the same use cases as /v1/destinations.
import { CreateDestinationRequest, toDestinationTestResult } from "@mds/shared/api/Destinations"
import { Effect } from "effect"
import { type ApiFailure, internalError, toApiError } from "../../http/ErrorMapping.ts"
import { decodeBody } from "../../http/RequestBody.ts"
import {
  addDestination,
  loadDestination,
  projectDestinations,
  removeProjectDestination,
  testProjectDestination
} from "../../destinations/DestinationUseCases.ts"
import { field } from "../DashboardForms.ts"
import { type DashboardInput, type Member, pageReply, requireMember } from "../DashboardRoute.ts"
import { type DestinationFormValues, destinationsPage, emptyDestinationForm } from "../pages/DestinationPages.ts"

const render = Effect.fn("renderDestinations")(function* (
  { signedIn, project }: Member,
  outcome: { readonly error?: string; readonly notice?: string; readonly form?: DestinationFormValues }
) {
  const destinations = yield* projectDestinations(project.projectId)
  const error = outcome.error ?? null
  return pageReply(
    destinationsPage({
      viewer: signedIn.viewer,
      project,
      destinations,
      form: outcome.form ?? emptyDestinationForm,
      error,
      notice: outcome.notice ?? null
    }),
    error === null ? 200 : 400
  )
})

/** A use case's refusal in the words /v1 gives it (one mapping), shown on the page; server-side failures go on. */
const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(effect, (failure) => {
    const api = toApiError(failure as ApiFailure) ?? internalError
    return api.status < 500 ? Effect.succeed({ refused: api.message } as const) : Effect.fail(failure)
  })

const refused = (outcome: unknown): outcome is { readonly refused: string } =>
  typeof outcome === "object" && outcome !== null && "refused" in outcome

export const showDestinations = Effect.fn("showDestinations")(function* (input: DashboardInput) {
  return yield* render(yield* requireMember(input), {})
})

export const addDashboardDestination = Effect.fn("addDashboardDestination")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const form: DestinationFormValues = {
    name: field(input.body, "name"),
    endpoint: field(input.body, "endpoint").trim(),
    bucket: field(input.body, "bucket").trim(),
    region: field(input.body, "region").trim(),
    prefix: field(input.body, "prefix").trim(),
    access_key_id: field(input.body, "access_key_id").trim()
  }
  const body = {
    name: form.name,
    type: "s3",
    endpoint: form.endpoint,
    bucket: form.bucket,
    ...(form.region === "" ? {} : { region: form.region }),
    ...(form.prefix === "" ? {} : { prefix: form.prefix }),
    access_key_id: form.access_key_id,
    secret_access_key: field(input.body, "secret_access_key")
  }
  const created = yield* refusal(
    Effect.flatMap(decodeBody(CreateDestinationRequest, body), (request) => addDestination(member.project.projectId, request))
  )
  if (refused(created)) return yield* render(member, { error: created.refused, form })
  return yield* render(member, { notice: `${created.name} is added; test it to see whether files can be written there.` })
})

export const testDashboardDestination = Effect.fn("testDashboardDestination")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const tested = yield* refusal(testProjectDestination(member.project.projectId, input.params["destinationId"] ?? ""))
  if (refused(tested)) return yield* render(member, { error: tested.refused })
  const result = toDestinationTestResult(tested)
  return result.ok
    ? yield* render(member, { notice: `The test worked: a probe object was written, found and removed (${result.duration_ms} ms).` })
    : yield* render(member, { error: `The test failed at ${result.step}: ${result.error?.code}: ${result.error?.message}` })
})

export const removeDashboardDestination = Effect.fn("removeDashboardDestination")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const destinationId = input.params["destinationId"] ?? ""
  const removed = yield* refusal(
    Effect.flatMap(loadDestination(member.project.projectId, destinationId), (destination) =>
      Effect.as(removeProjectDestination(member.project.projectId, destinationId), destination)
    )
  )
  if (refused(removed)) return yield* render(member, { error: removed.refused })
  return yield* render(member, { notice: `${removed.name} is removed.` })
})

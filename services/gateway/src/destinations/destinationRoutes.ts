// Extension: /v1/destinations: create (S3 only), list, read, remove, test. Credentials never leave (toDestinationBody).
import { CreateDestinationRequest, toDestinationBody, toDestinationTestResult } from "@mds/shared/api/Destinations"
import { Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import {
  addDestination,
  loadDestination,
  projectDestinations,
  removeProjectDestination,
  testProjectDestination
} from "./DestinationUseCases.ts"

const destinationIdOf = (input: RouteInput) => input.params["destinationId"] ?? ""

export const createDestination = Effect.fn("createDestination")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(CreateDestinationRequest, input.body)
  return json(201, toDestinationBody(yield* addDestination(principal.projectId, body)))
})

export const listDestinations = Effect.fn("listDestinations")(function* (_input: RouteInput, principal: Principal) {
  return json(200, (yield* projectDestinations(principal.projectId)).map(toDestinationBody))
})

export const getDestination = Effect.fn("getDestination")(function* (input: RouteInput, principal: Principal) {
  return json(200, toDestinationBody(yield* loadDestination(principal.projectId, destinationIdOf(input))))
})

export const removeDestination = Effect.fn("removeDestination")(function* (input: RouteInput, principal: Principal) {
  const destinationId = destinationIdOf(input)
  yield* removeProjectDestination(principal.projectId, destinationId)
  return json(200, { id: destinationId, removed: true })
})

export const testDestination = Effect.fn("testDestination")(function* (input: RouteInput, principal: Principal) {
  return json(200, toDestinationTestResult(yield* testProjectDestination(principal.projectId, destinationIdOf(input))))
})

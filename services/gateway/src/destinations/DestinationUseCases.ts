// Extension: what a project can do with its destinations, whoever asks (the /v1 routes and the dashboard both call these).
import { type CreateDestinationRequest, type DestinationTestOutcome, normalizedPrefix } from "@mds/shared/api/Destinations"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { destinationCommands, liveDestination, projectDestinations } from "@mds/shared/application/destination/DestinationCommands"
import { DestinationLimit } from "@mds/shared/application/destination/DestinationLimit"
import { writerOf } from "@mds/shared/application/destination/DestinationWriterDoor"
import { DestinationNotFound } from "@mds/shared/domain/destination/DestinationDecider"
import { accessKeyHint } from "@mds/shared/domain/destination/DestinationMask"
import type { Destination } from "@mds/shared/domain/destination/DestinationState"
import { type DestinationError, type DestinationErrorCode, destinationErrorCode } from "@mds/shared/destinations/DestinationWriter"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { DestinationId, newId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Redacted, Schema } from "effect"
import { DestinationLimitReached } from "../http/GatewayErrors.ts"
import { parseHttpUrl } from "../http/RequestBody.ts"

const isDestinationId = Schema.is(DestinationId)

/** The project's live destination; a malformed id, another project's or a removed one is not found. */
export const loadDestination = Effect.fn("loadDestination")(function* (projectId: string, destinationId: string) {
  if (!isDestinationId(destinationId)) return yield* new DestinationNotFound({ destinationId })
  return yield* liveDestination(projectId, destinationId)
})

/**
 * Refuses a destination past the project's limit. Counted from the project's destinations as stored: requests racing
 * within the same moment may pass the limit by the few that raced (as subscriptions).
 */
const ensureBelowDestinationLimit = Effect.fn("ensureBelowDestinationLimit")(function* (projectId: string) {
  const limit = (yield* DestinationLimit).perProject
  if ((yield* projectDestinations(projectId)).length >= limit) return yield* new DestinationLimitReached({ limit })
})

/** A media server's URL, parsed and vetted by the egress guard as an endpoint is. */
const vetRefreshUrl = Effect.fn("vetRefreshUrl")(function* (url: string) {
  const parsed = yield* parseHttpUrl("refresh.url", url)
  yield* (yield* EgressPolicy).check(parsed)
  return parsed
})

/** Adds an S3 destination: its endpoint vetted by the egress guard, its credentials sealed before they are stored. */
export const addDestination = Effect.fn("addDestination")(function* (projectId: string, body: CreateDestinationRequest) {
  yield* ensureBelowDestinationLimit(projectId)
  const endpoint = yield* parseHttpUrl("endpoint", body.endpoint)
  yield* (yield* EgressPolicy).check(endpoint)
  const destinationId = newId("dst")
  const sealedCredentials = yield* (yield* DestinationAccess).seal(projectId, destinationId, {
    accessKeyId: body.access_key_id,
    secretAccessKey: Redacted.make(body.secret_access_key)
  })
  const refresh =
    body.refresh === undefined
      ? undefined
      : {
          kind: body.refresh.type,
          url: (yield* vetRefreshUrl(body.refresh.url)).href.replace(/\/$/, ""),
          sealedToken: yield* (yield* DestinationAccess).sealToken(projectId, destinationId, Redacted.make(body.refresh.token))
        }
  const now = yield* Clock.currentTimeMillis
  const handled = yield* destinationCommands(projectId, destinationId)(
    {
      _tag: "CreateDestination",
      projectId,
      destinationId,
      name: body.name,
      target: {
        kind: "s3",
        endpoint: endpoint.origin,
        bucket: body.bucket,
        region: body.region ?? "us-east-1",
        prefix: normalizedPrefix(body.prefix),
        accessKeyHint: accessKeyHint(body.access_key_id),
        sealedCredentials
      },
      ...(refresh === undefined ? {} : { refresh }),
      now
    },
    { isNew: true }
  )
  yield* Effect.logInfo("destination created", { projectId, destinationId })
  return handled.state as Destination
})

export const removeProjectDestination = Effect.fn("removeProjectDestination")(function* (projectId: string, destinationId: string) {
  yield* loadDestination(projectId, destinationId)
  yield* destinationCommands(
    projectId,
    destinationId
  )({
    _tag: "RemoveDestination",
    projectId,
    destinationId,
    now: yield* Clock.currentTimeMillis
  })
  yield* Effect.logInfo("destination removed", { projectId, destinationId })
})

/**
 * Writes, finds and removes a probe object. Whatever fails on the way is the answer (a step and a code), not an
 * error: only a destination the project does not have is one.
 */
export const testProjectDestination = Effect.fn("testProjectDestination")(function* (projectId: string, destinationId: string) {
  const destination = yield* loadDestination(projectId, destinationId)
  const started = yield* Clock.currentTimeMillis
  const connectFailure = (code: DestinationErrorCode, message: string) =>
    Effect.map(
      Clock.currentTimeMillis,
      (now): DestinationTestOutcome => ({ ok: false, step: "connect", code, message, durationMs: now - started })
    )
  const writerRefused = (error: DestinationError) => connectFailure(destinationErrorCode(error), error.message)
  const outcome: DestinationTestOutcome = yield* writerOf(destination).pipe(
    Effect.flatMap((writer) => writer.probe()),
    Effect.catchTags({
      DestinationsNotConfigured: () =>
        connectFailure("destination_failed", "this server has no DESTINATIONS_ENCRYPTION_KEY to open the credentials with"),
      DestinationCredentialsUnreadable: () =>
        connectFailure(
          "destination_failed",
          "the stored credentials do not open with this server's DESTINATIONS_ENCRYPTION_KEY; create the destination again"
        ),
      DestinationDenied: writerRefused,
      DestinationUnreachable: writerRefused,
      DestinationMissing: writerRefused,
      DestinationFailed: writerRefused
    })
  )
  yield* Effect.logInfo("destination tested", {
    projectId,
    destinationId,
    ok: outcome.ok,
    ...(outcome.ok ? {} : { step: outcome.step, code: outcome.code })
  })
  return outcome
})

export { projectDestinations }

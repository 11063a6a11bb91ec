// The admin CLI's destination commands (extension): give a project a folder on this host (only the operator names a
// path), list a project's destinations, remove one.
import { toDestinationBody } from "@mds/shared/api/Destinations"
import { currentProject } from "@mds/shared/application/account/AccountCommands"
import { destinationCommands, projectDestinations } from "@mds/shared/application/destination/DestinationCommands"
import { destinationsPerProject } from "@mds/shared/application/destination/DestinationLimit"
import { ProjectNotFound } from "@mds/shared/domain/DomainErrors"
import { destinationFolderRoot } from "@mds/shared/destinations/DestinationWriters"
import { resolveFolder } from "@mds/shared/destinations/FolderDestinationWriter"
import { newId } from "@mds/shared/ids/Ids"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import type { LibraryRefreshTarget } from "@mds/shared/domain/destination/DestinationEvent"
import { Clock, Config, Effect, Option } from "effect"
import { UsageError } from "./AdminCommand.ts"

export type DestinationAdminCommand =
  | {
      readonly _tag: "AddFolderDestination"
      readonly projectId: string
      readonly name: string
      readonly path: string
      readonly refreshType?: "jellyfin" | "plex"
      readonly refreshUrl?: string
    }
  | { readonly _tag: "ListDestinations"; readonly projectId: string }
  | { readonly _tag: "RemoveDestination"; readonly projectId: string; readonly destinationId: string }

const requireProject = Effect.fn("requireProject")(function* (projectId: string) {
  const { state } = yield* currentProject(projectId)
  if (!state.exists) return yield* new ProjectNotFound({ projectId })
})

/** The operator's media server for a folder: both flags or neither, the token from the environment only; sealed. */
const folderRefresh = Effect.fn("folderRefresh")(function* (
  command: Extract<DestinationAdminCommand, { _tag: "AddFolderDestination" }>,
  destinationId: string
) {
  if (command.refreshType === undefined && command.refreshUrl === undefined) return undefined
  if (command.refreshType === undefined || command.refreshUrl === undefined) {
    return yield* new UsageError({ message: "--refresh-type and --refresh-url go together" })
  }
  const token = yield* Config.option(Config.Redacted("MDS_LIBRARY_REFRESH_TOKEN")).pipe(
    Effect.mapError(() => new UsageError({ message: "MDS_LIBRARY_REFRESH_TOKEN cannot be read" }))
  )
  if (Option.isNone(token))
    return yield* new UsageError({ message: "--refresh-type needs the server's token in MDS_LIBRARY_REFRESH_TOKEN" })
  const sealedToken = yield* Effect.gen(function* () {
    return yield* (yield* DestinationAccess).sealToken(command.projectId, destinationId, token.value)
  }).pipe(
    Effect.mapError(() => new UsageError({ message: "a media server's token needs DESTINATIONS_ENCRYPTION_KEY" })),
    Effect.provide(DestinationAccess.layer)
  )
  return { kind: command.refreshType, url: command.refreshUrl.replace(/\/$/, ""), sealedToken } satisfies LibraryRefreshTarget
})

/** Returns what the command prints: the new destination's id, one JSON line per destination, or nothing. */
export const runDestinationCommand = Effect.fn("runDestinationCommand")(function* (command: DestinationAdminCommand) {
  yield* requireProject(command.projectId)
  const now = yield* Clock.currentTimeMillis
  switch (command._tag) {
    case "AddFolderDestination": {
      const limit = yield* destinationsPerProject
      if ((yield* projectDestinations(command.projectId)).length >= limit) {
        return yield* new UsageError({
          message: `project ${command.projectId} already has ${limit} destinations (DESTINATIONS_PER_PROJECT)`
        })
      }
      // The folder as it really is (links resolved), there now, and inside DESTINATION_FOLDER_ROOT when that is set.
      const path = yield* resolveFolder(command.path, yield* destinationFolderRoot).pipe(
        Effect.mapError((refused) => new UsageError({ message: `--path ${command.path}: ${refused.message}` }))
      )
      const destinationId = newId("dst")
      const refresh = yield* folderRefresh(command, destinationId)
      yield* destinationCommands(command.projectId, destinationId)(
        {
          _tag: "AssignFolderDestination",
          projectId: command.projectId,
          destinationId,
          name: command.name,
          target: { kind: "folder", path },
          ...(refresh === undefined ? {} : { refresh }),
          now
        },
        { isNew: true }
      )
      return destinationId
    }
    case "ListDestinations": {
      const destinations = yield* projectDestinations(command.projectId)
      return destinations
        .map((destination) =>
          JSON.stringify({ ...toDestinationBody(destination), path: destination.target.kind === "folder" ? destination.target.path : null })
        )
        .join("\n")
    }
    case "RemoveDestination":
      yield* destinationCommands(
        command.projectId,
        command.destinationId
      )({
        _tag: "RemoveDestination",
        projectId: command.projectId,
        destinationId: command.destinationId,
        now
      })
      return ""
  }
})

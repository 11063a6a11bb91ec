// Extension: the destination a download, batch or subscription names must be a live destination of the request's
// project (404 destination_not_found otherwise: unknown, removed, or another project's, told apart by nothing).
import { liveDestination } from "@mds/shared/application/destination/DestinationCommands"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { Effect } from "effect"

export const checkRequestedDestination = (projectId: string, options: DownloadOptions) =>
  options.delivery === undefined ? Effect.void : Effect.asVoid(liveDestination(projectId, options.delivery.destinationId))

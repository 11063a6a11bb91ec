// Extension: opens the DestinationWriter of a target: S3 through the egress guard (its endpoint must be a public address
// unless EGRESS_ALLOW lists it), a folder resolved on the host (inside DESTINATION_FOLDER_ROOT when that is set); either
// one's puts end when no byte moved for DESTINATION_STALL_SECONDS (StallGuard).
import { Config, Context, Effect, Layer, Option } from "effect"
import { EgressPolicy } from "../egress/EgressPolicy.ts"
import { DestinationUnreachable, type DestinationError, type DestinationWriter, type WritableTarget } from "./DestinationWriter.ts"
import { makeFolderDestinationWriter, resolveFolder } from "./FolderDestinationWriter.ts"
import { openS3DestinationWriter } from "./S3DestinationWriter.ts"
import { destinationStall, withStallGuard } from "./StallGuard.ts"

/** DESTINATION_FOLDER_ROOT: when set, every folder destination must lie inside it (checked when given and when opened). */
export const destinationFolderRoot = Config.String("DESTINATION_FOLDER_ROOT").pipe(
  Config.option,
  Config.map((root) => Option.getOrNull(Option.filter(root, (path) => path.trim() !== "")))
)

export class DestinationWriters extends Context.Service<
  DestinationWriters,
  {
    /** A writer for the target; fails when its endpoint may not be reached or its folder is not there. */
    writerFor(target: WritableTarget): Effect.Effect<DestinationWriter, DestinationError>
  }
>()("mds/destinations/DestinationWriters") {
  static readonly layer = Layer.effect(
    DestinationWriters,
    Effect.gen(function* () {
      const egress = yield* EgressPolicy
      const root = yield* destinationFolderRoot
      const stall = yield* destinationStall
      const writerFor = Effect.fn("DestinationWriters.writerFor")(function* (target: WritableTarget) {
        if (target.kind === "folder") return withStallGuard(makeFolderDestinationWriter(yield* resolveFolder(target.path, root)), stall)
        const address = yield* egress
          .resolveUrl(new URL(target.endpoint))
          .pipe(Effect.mapError((refused) => new DestinationUnreachable({ operation: "connect", message: refused.message })))
        return withStallGuard(yield* openS3DestinationWriter(target, address), stall)
      })
      return DestinationWriters.of({ writerFor })
    })
  )
}

// Store: puts a run's finished file into the artifact store under the job's key, and takes it out again when the job
// ended otherwise (nobody can fetch it then).
import { extname } from "node:path"
import { Clock, Context, Effect, Layer } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { mimeTypeOf, safeFileName } from "./ArtifactFile.ts"
import { jobFailure } from "./DownloadFailed.ts"

/** The key of the file a run put into the artifact store, once it is there. */
export interface StoredByRun {
  key: string | null
}

export class StoreArtifact extends Context.Service<StoreArtifact>()("mds/extractor/StoreArtifact", {
  make: Effect.gen(function* () {
    const artifacts = yield* ArtifactStore
    const lifetimes = yield* Lifetimes

    /**
     * Storing is not interruptible: an upload (or a file move) goes on after its fiber is interrupted, so a cancel
     * or the job's end arriving meanwhile waits for it, and the run then removes what it stored (`put.key`).
     */
    const store = Effect.fn("StoreArtifact.store")(function* (
      command: DownloadMedia,
      file: DownloadedFile,
      kind: "video" | "audio",
      put: StoredByRun
    ) {
      const ext = (file.ext ?? extname(file.filepath).slice(1)) || "bin"
      const filename = safeFileName(file.title ?? "media", ext)
      const mimeType = mimeTypeOf(ext, kind)
      const key = `jobs/${command.projectId}/${command.jobId}/${filename}`
      const stored = yield* artifacts.putFile(key, file.filepath, mimeType).pipe(
        Effect.tap(() => Effect.sync(() => (put.key = key))),
        Effect.uninterruptible,
        Effect.mapError((error) => jobFailure("internal_error", `storing the file failed: ${error.message}`))
      )
      return {
        key,
        filename,
        mimeType,
        sizeBytes: stored.sizeBytes,
        availableUntil: (yield* Clock.currentTimeMillis) + lifetimes.downloadUrlMs
      }
    })

    /** A file this run stored for a job that ended otherwise: nobody can fetch it, so it is not kept. */
    const discard = (put: StoredByRun) => (put.key === null ? Effect.void : artifacts.remove(put.key).pipe(Effect.ignore))

    return { store, discard }
  })
}) {
  static readonly layer = Layer.effect(StoreArtifact, StoreArtifact.make)
}

// Extension: a live recording's parts kept in the artifact store while it records, so that a worker lost mid-recording
// (kill -9, NATS gone past the ack wait) does not lose what it recorded. yt-dlp records a live HLS stream as MPEG-TS
// (its ffmpeg writes `-f mpegts` while the stream is live): the growing file is cut at 188-byte packet boundaries, each
// new stretch put under the job's key; the job's next run joins the parts (TS concatenates) and copies them into the
// job's container (`-c copy`).
import { createReadStream, createWriteStream } from "node:fs"
import { open, readdir, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { Context, Effect, Layer } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { recordingPartKey, recordingPartKeys } from "@mds/shared/artifacts/RecordingPartKey"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { Ffmpeg } from "../media/Ffmpeg.ts"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { jobFailure } from "./DownloadFailed.ts"

/** How often a recording's new bytes are kept. */
export const RECORDING_KEEP_MS = 4_000
const TS_PACKET = 188
/** Fewer new bytes than this wait for the next round (a part is at least a few packets). */
const MIN_PART_BYTES = TS_PACKET * 64

const partKey = (command: DownloadMedia, index: number) => recordingPartKey(command.projectId, command.jobId, index)

/** What a run kept of its recording so far (the run's end removes them once the job's file is stored). */
export interface KeptParts {
  chunks: number
  bytes: number
}

/** The largest file in the run's directory when it is MPEG-TS (its first packet's sync byte), else null. */
const growingTsFile = (dir: string) =>
  Effect.promise(async () => {
    const names = await readdir(dir).catch(() => [] as Array<string>)
    let largest: { path: string; size: number } | null = null
    for (const name of names) {
      const path = join(dir, name)
      const size = await stat(path).then(
        (s) => (s.isFile() ? s.size : 0),
        () => 0
      )
      if (largest === null || size > largest.size) largest = { path, size }
    }
    if (largest === null || largest.size < TS_PACKET * 2) return null
    const handle = await open(largest.path, "r")
    try {
      const head = Buffer.alloc(TS_PACKET + 1)
      await handle.read(head, 0, head.length, 0)
      return head[0] === 0x47 && head[TS_PACKET] === 0x47 ? largest : null
    } finally {
      await handle.close()
    }
  })

const copyRange = (from: string, to: string, start: number, end: number) =>
  Effect.promise(() => pipeline(createReadStream(from, { start, end: end - 1 }), createWriteStream(to)))

export class RecordingParts extends Context.Service<RecordingParts>()("mds/extractor/RecordingParts", {
  make: Effect.gen(function* () {
    const store = yield* ArtifactStore
    const ffmpeg = yield* Ffmpeg

    /**
     * Puts the recording's bytes written since the last part into the store as the next part; true when it kept one.
     * `scratch` is a path outside the run's directory (the recording's size is what that directory holds).
     */
    const keepNext = (command: DownloadMedia, workDir: string, scratch: string, kept: KeptParts) =>
      Effect.gen(function* () {
        const file = yield* growingTsFile(workDir)
        if (file === null) return false
        const end = Math.floor(file.size / TS_PACKET) * TS_PACKET
        if (end - kept.bytes < MIN_PART_BYTES) return false
        yield* copyRange(file.path, scratch, kept.bytes, end)
        yield* store
          .putFile(partKey(command, kept.chunks), scratch, "video/mp2t")
          .pipe(Effect.ensuring(Effect.promise(() => rm(scratch, { force: true }))))
        kept.chunks += 1
        kept.bytes = end
        return true
      })

    /** Joins a lost recording's first `chunks` parts into one file of the job's kind in `workDir`. */
    const join_ = (command: DownloadMedia, chunks: number, workDir: string, kind: "video" | "audio") =>
      Effect.gen(function* () {
        const joined = join(workDir, "recording.ts")
        for (let index = 0; index < chunks; index++) {
          const part = yield* store.open(partKey(command, index))
          yield* Effect.promise(() => pipeline(part.body, createWriteStream(joined, { flags: "a" })))
        }
        const ext = kind === "audio" ? "m4a" : "mp4"
        const filepath = join(workDir, `recording.${ext}`)
        yield* ffmpeg.remuxFile(joined, filepath, kind === "audio" ? "ipod" : "mp4")
        yield* Effect.promise(() => rm(joined, { force: true }))
        return { filepath, ext, title: "recording" } satisfies DownloadedFile
      }).pipe(
        Effect.mapError((error) =>
          jobFailure("recording_interrupted", `The recording's worker was lost and its kept parts could not be joined: ${error.message}`)
        )
      )

    /** Takes a recording's parts out of the store (its job's file is stored, or it ended otherwise). */
    const remove = (command: DownloadMedia, chunks: number) =>
      Effect.forEach(recordingPartKeys(command.projectId, command.jobId, chunks), (key) => store.remove(key).pipe(Effect.ignore), {
        discard: true
      })

    return { keepNext, join: join_, remove }
  })
}) {
  static readonly layer = Layer.effect(RecordingParts, RecordingParts.make)
}

// Integration: a live recording's parts against the filesystem artifact store and the real ffmpeg. The growing MPEG-TS
// file is kept in parts cut at 188-byte packets (never mid-packet, nothing twice), a file that is not MPEG-TS keeps
// nothing, the parts join into one playable MP4 as long as the recording, and removing them leaves nothing behind.
import { spawn } from "node:child_process"
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { recordingPartKey } from "@mds/shared/artifacts/RecordingPartKey"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { ffmpeg as makeMedia } from "../../../test/support/MediaFixtures.ts"
import { RecordingParts } from "../src/download/RecordingParts.ts"
import { Ffmpeg, makeFfmpeg } from "../src/media/Ffmpeg.ts"
import type { ConfinementShape } from "../src/sandbox/Confinement.ts"

/** ffmpeg on local files only: no confinement is needed for what the parts ask of it. */
const direct: ConfinementShape = {
  description: "direct (test)",
  kind: { _tag: "network-policy" },
  spawn: (command, args) => spawn(command, [...args], { detached: true })
}

const ffmpegTool = () => makeFfmpeg(process.env["FFMPEG_PATH"] ?? "ffmpeg", process.env["FFPROBE_PATH"] ?? "ffprobe", direct)

let dir: string
let recordingTs: Buffer
const command = { projectId: "prj_parts", jobId: "job_parts" } as DownloadMedia

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mds-recording-parts-"))
  const media = [
    ...["-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=6", "-f", "lavfi", "-i", "sine=frequency=440:duration=6"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mpegts", "recording.ts"]
  ]
  await makeMedia(media, dir)
  recordingTs = await readFile(join(dir, "recording.ts"))
}, 120_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const withParts = <A, E>(use: (parts: RecordingParts["Service"], store: ArtifactStore["Service"]) => Effect.Effect<A, E>) => {
  const store = makeFsArtifactStore(join(dir, "store"), makeDownloadLinkSigner("secret", "http://127.0.0.1:1"))
  return Effect.runPromise(
    Effect.gen(function* () {
      const parts = yield* RecordingParts.make
      return yield* use(parts, store)
    }).pipe(Effect.provideService(ArtifactStore, store), Effect.provideService(Ffmpeg, Ffmpeg.of(ffmpegTool())))
  )
}

describe("a live recording's parts", () => {
  it("keeps the growing file at packet boundaries, joins the parts into an MP4 as long as the recording, removes them", async () => {
    expect(recordingTs.length % 188).toBe(0)
    const workDir = join(dir, "run")
    await mkdir(workDir)
    const growing = join(workDir, "media.mp4.part")
    // Mid-packet: the part stops at the last whole packet, and the next one starts there.
    const firstCut = Math.floor(recordingTs.length / 2) + 100
    await writeFile(growing, recordingTs.subarray(0, firstCut))
    const kept = { chunks: 0, bytes: 0 }
    const scratch = join(dir, "run.keep.ts")
    expect(await withParts((parts) => parts.keepNext(command, workDir, scratch, kept))).toBe(true)
    expect(kept).toEqual({ chunks: 1, bytes: firstCut - (firstCut % 188) })
    // Nothing new (less than a part): nothing kept again.
    expect(await withParts((parts) => parts.keepNext(command, workDir, scratch, kept))).toBe(false)
    await appendFile(growing, recordingTs.subarray(firstCut))
    expect(await withParts((parts) => parts.keepNext(command, workDir, scratch, kept))).toBe(true)
    expect(kept).toEqual({ chunks: 2, bytes: recordingTs.length })

    const joinDir = join(dir, "join")
    await mkdir(joinDir)
    const file = await withParts((parts) => parts.join(command, kept.chunks, joinDir, "video"))
    expect(file).toMatchObject({ ext: "mp4", filepath: join(joinDir, "recording.mp4") })
    const probed = await Effect.runPromise(ffmpegTool().probeFile(file.filepath))
    expect(probed.hasVideo).toBe(true)
    expect(probed.durationSeconds ?? 0).toBeGreaterThan(5.5)
    expect(probed.durationSeconds ?? 0).toBeLessThan(6.6)

    await withParts((parts) => parts.remove(command, kept.chunks))
    const gone = await withParts((_, store) => Effect.flip(store.open(recordingPartKey(command.projectId, command.jobId, 0))))
    expect(gone._tag).toBe("ArtifactNotFound")
  }, 60_000)

  it("a file that is not MPEG-TS keeps nothing", async () => {
    const workDir = join(dir, "not-ts")
    await mkdir(workDir)
    await writeFile(join(workDir, "media.mp4.part"), Buffer.alloc(64 * 1024, 1))
    const kept = { chunks: 0, bytes: 0 }
    expect(await withParts((parts) => parts.keepNext(command, workDir, join(dir, "not-ts.keep.ts"), kept))).toBe(false)
    expect(kept).toEqual({ chunks: 0, bytes: 0 })
  })
})

// A cancel that arrives while the finished file is being stored: the store completes, and then nothing of it is kept.
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Option, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { ArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { claimSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { type QueuedJob, queueJob } from "@mds/shared/application/job/DownloadWork"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { admissionSubject, jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type NatsServer, startNatsServer } from "../../../test/support/NatsServer.ts"
import { DownloadJob } from "../src/download/DownloadJob.ts"
import { FetchMedia } from "../src/download/FetchMedia.ts"
import { JobCancelWatch } from "../src/download/JobCancelWatch.ts"
import { ExtractorConfig } from "../src/ExtractorConfig.ts"
import { PlatformOutcomes } from "../src/health/PlatformOutcomes.ts"
import { Ffmpeg } from "../src/media/Ffmpeg.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

/** A one-shot signal a test awaits. */
const signal = <A = void>() => {
  let resolve: (value: A) => void = () => undefined
  const promise = new Promise<A>((r) => (resolve = r))
  return { promise, resolve }
}

/**
 * The gate on the store: a put writes the file, says `entered`, and returns only once the gate is `open`, like an
 * upload whose last response is pending. An interrupted fiber stops waiting for it; the file is written all the same.
 */
const gate = { entered: signal<string>(), open: signal() }
/** Completes when the run's own cancel watch has told it that its job was canceled. */
const runToldOfCancel = signal()

/** The real filesystem store, its puts held at the gate. */
const GatedArtifacts = Layer.effect(
  ArtifactStore,
  Effect.gen(function* () {
    const inner = yield* ArtifactStore
    return ArtifactStore.of({
      ...inner,
      putFile: (key, path, contentType) =>
        Effect.promise(async () => {
          const stored = await Effect.runPromise(inner.putFile(key, path, contentType))
          gate.entered.resolve(key)
          await gate.open.promise
          return stored
        })
    })
  })
).pipe(Layer.provide(ArtifactStoreLayer))

/** The real watch; the test only learns when it fired. */
const ObservedCancelWatch = Layer.effect(
  JobCancelWatch,
  Effect.gen(function* () {
    const inner = yield* JobCancelWatch
    return JobCancelWatch.of({
      watch: (projectId, jobId) =>
        Effect.map(inner.watch(projectId, jobId), (watched) => ({
          ...watched,
          wait: watched.wait.pipe(Effect.tap(() => Effect.sync(() => runToldOfCancel.resolve())))
        }))
    })
  })
).pipe(Layer.provide(JobCancelWatch.layer))

/** yt-dlp is not what is tested here: the "download" is a finished file in the run's work directory. */
const FinishedDownload = Layer.succeed(
  FetchMedia,
  FetchMedia.of({
    fetch: (_command, _spec, options) =>
      Effect.promise(async () => {
        const filepath = join(options.workDir, "clip.mp4")
        await writeFile(filepath, "not really a video")
        return { filepath, title: "clip", ext: "mp4" }
      }),
    fetchSubtitles: () => Effect.die("not used")
  })
)

/** No run here records a live stream: ffmpeg is never asked. */
const NoFfmpeg = Layer.succeed(
  Ffmpeg,
  Ffmpeg.of({
    probe: () => Effect.die("not used"),
    probeFile: () => Effect.die("not used"),
    thumbnail: () => Effect.die("not used"),
    remuxFile: () => Effect.die("not used")
  })
)

let nats: NatsServer
let dataDir: string
let runtime: ManagedRuntime.ManagedRuntime<DownloadJob | EventStore | ArtifactStore, never>

beforeAll(async () => {
  nats = await startNatsServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-cancel-store-"))
  const infrastructure = Layer.mergeAll(JetStreamEventStore, ExtractorConfig.layer).pipe(
    Layer.provideMerge(Layer.effectDiscard(ensureStreams)),
    Layer.provideMerge(Layer.mergeAll(NatsClient.layer, Lifetimes.layer, LiveWait.layer))
  )
  const collaborators = Layer.mergeAll(GatedArtifacts, ObservedCancelWatch, FinishedDownload, PlatformOutcomes.layer, NoFfmpeg).pipe(
    Layer.provideMerge(infrastructure)
  )
  runtime = ManagedRuntime.make(
    DownloadJob.layer.pipe(
      Layer.provideMerge(collaborators),
      Layer.provide(
        ConfigProvider.layer(
          ConfigProvider.fromEnvRecord({
            NATS_URL: nats.url,
            DATA_DIR: dataDir,
            DOWNLOAD_URL_SECRET: "test-secret",
            PUBLIC_BASE_URL: "http://gateway.test"
          })
        )
      ),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
  await nats?.close()
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
})

describe("cancel while the file is being stored", () => {
  it("the store finishes, the stored file is removed, and the slot is freed", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    const now = Date.now()
    const job: QueuedJob = {
      jobId,
      projectId,
      platform: "generic",
      format: parseFormatId("video_best"),
      source: { url: "https://example.com/clip.mp4", mediaId: null },
      now,
      lifetimeMs: 3_600_000
    }
    const command: DownloadMedia = {
      _tag: "DownloadMedia",
      v: 1,
      jobId,
      projectId,
      url: job.source.url,
      mediaId: null,
      format: job.format,
      platform: job.platform
    }
    await runtime.runPromise(Effect.andThen(queueJob(job), claimSlot({ projectId, jobId, limit: 2, now, expiresAt: now + 3_600_000 })))
    const run = runtime.runPromise(
      Effect.gen(function* () {
        return yield* (yield* DownloadJob).run(command, { workSeq: 1, deliveryCount: 1, working: () => undefined, concurrentFragments: 1 })
      })
    )

    const key = await gate.entered.promise
    // A run has started, so the cancel leaves the slot to the run (as DELETE /v1/jobs does).
    await runtime.runPromise(jobCommands(projectId, jobId)({ _tag: "CancelJob", jobId, now: Date.now() }))
    await runToldOfCancel.promise
    gate.open.resolve()
    expect(await run).toBe("ack")

    const opened = await runtime.runPromise(
      Effect.gen(function* () {
        return yield* (yield* ArtifactStore).open(key)
      }).pipe(
        Effect.as("stored"),
        Effect.catchTag("ArtifactNotFound", () => Effect.succeed("absent"))
      )
    )
    expect(opened, `the artifact ${key} of the canceled job`).toBe("absent")
    const [events, admission] = await runtime.runPromise(
      Effect.gen(function* () {
        const store = yield* EventStore
        return [
          (yield* store.readSubject(JobEvent, jobSubject(projectId, jobId))).map((stored) => stored.event._tag),
          yield* store.readLast(AdmissionEvent, admissionSubject(projectId))
        ] as const
      })
    )
    expect(events).toEqual(["JobQueued", "JobStarted", "JobCanceled"])
    expect(Option.getOrThrow(admission).event).toMatchObject({ _tag: "SlotReleased", jobId, reason: "canceled", held: [] })
  })
})

// Runs the extractor in-process on a throwaway nats-server with the pinned yt-dlp, and drives it like the gateway does.
import { claimSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Option, References, Schema } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/application/job/DownloadWork"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { ResolveReply } from "@mds/shared/domain/media/ResolveRpc"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { admissionSubject, jobSubject, RESOLVE_RPC_SUBJECT } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { afterAll, beforeAll, expect } from "vitest"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { type NatsServer, startNatsServer } from "../../../test/support/NatsServer.ts"
import { startTcpRelay, type TcpRelay } from "../../../test/support/TcpRelay.ts"
import { ExtractorLayer } from "../src/ExtractorLayer.ts"
import { WarmRunner } from "../src/warm/WarmRunner.ts"
import type { YtDlp } from "../src/ytdlp/YtDlp.ts"
import { eventually } from "../../../test/support/Eventually.ts"

export const YT_DLP = join(import.meta.dirname, "..", "..", "..", ".tools", "venv", "bin", "yt-dlp")

type Services = EventStore | ArtifactStore | WarmRunner | YtDlp

export interface ExtractorHarness {
  readonly nats: NatsServer
  /** The extractor reaches NATS through this relay: `cut` takes its connection away (the test's own reads stay). */
  readonly relay: TcpRelay
  readonly dataDir: string
  readonly client: NatsConnection
  run<A, E>(effect: Effect.Effect<A, E, Services>): Promise<A>
  /**
   * Runs over the test's own NATS connection, which works while the relay is cut. The other reads go over the
   * extractor's connection, so they see what the extractor appended before them (one connection keeps its order).
   */
  runOwn<A, E>(effect: Effect.Effect<A, E, EventStore>): Promise<A>
  /** Asks the resolve RPC, as the gateway does. */
  resolve(url: string): Promise<ResolveReply>
  /** resolve, for a test that needs the media: anything but a resolved media fails it with the reply's code. */
  resolved(url: string): Promise<MediaResolved>
  /**
   * Records JobQueued and a claimed slot, then puts DownloadMedia on the work queue, as the gateway does; with
   * `mediaId`, as for a download by media id (`url` is then the URL the media was resolved from); `options` are the
   * job's extensions (clip, preset, subtitles); with `quotaBytesLeft`, as when the project's monthly byte quota leaves
   * that many bytes (the slot claimed under a quota, the work carrying what is left).
   */
  queueJob(
    url: string,
    format: string,
    mediaId?: string,
    platform?: string,
    projectId?: string,
    options?: DownloadOptions,
    quotaBytesLeft?: number
  ): Promise<{ readonly projectId: string; readonly jobId: string }>
  /** Asks the resolve RPC for a project, as the gateway does for a key of that project (`playlist`: a playlist resolve). */
  resolveFor(url: string, projectId: string, options?: { readonly playlist?: boolean }): Promise<ResolveReply>
  /** The job's events once it completed or failed (throws after `timeoutMs`). */
  waitForEnd(projectId: string, jobId: string, timeoutMs?: number): Promise<ReadonlyArray<JobEvent>>
  lastAdmission(projectId: string): Promise<AdmissionEvent>
  /** The bytes of a stored artifact. */
  artifactBytes(key: string): Promise<Buffer>
  /** The job's events so far. */
  jobEvents(projectId: string, jobId: string): Promise<ReadonlyArray<JobEvent>>
  /**
   * Cancels the job as DELETE /v1/jobs does: the decider's CancelJob, and the slot freed only if no run started
   * (slotReleaseOf); over the test's own connection, so it works while the relay is cut.
   */
  cancelJob(projectId: string, jobId: string): Promise<void>
  close(): Promise<void>
}

/** The artifact of a job that completed; any other end fails the test, naming the job's events. */
export const completedArtifact = (events: ReadonlyArray<JobEvent>) => {
  const last = events.at(-1)
  if (last?._tag !== "JobCompleted") throw new Error(`expected JobCompleted, got ${JSON.stringify(events)}`)
  return last.artifact
}

/** Queues a video_best download of `url` and expects it to complete (the failure names the job's events). */
export const downloadCompletes = async (harness: ExtractorHarness, url: string) => {
  const { projectId, jobId } = await harness.queueJob(url, "video_best")
  const events = await harness.waitForEnd(projectId, jobId, 120_000)
  expect(
    events.map((e) => e._tag),
    JSON.stringify(events)
  ).toContain("JobCompleted")
}

const decodeReply = Schema.decodeUnknownSync(Schema.fromJsonString(ResolveReply))

/** The warm runner's status once it takes runs (throws after `timeoutMs`, naming why it does not). */
export const warmRunnerReady = (run: <A>(effect: Effect.Effect<A, never, WarmRunner>) => Promise<A>, timeoutMs = 60_000) =>
  eventually(
    () =>
      run(
        Effect.gen(function* () {
          return (yield* WarmRunner).status()
        })
      ),
    (status) => "pid" in status.ready,
    "the warm runner to be ready",
    timeoutMs
  )

export const startExtractorHarness = async (env: Readonly<Record<string, string>>): Promise<ExtractorHarness> => {
  const nats = await startNatsServer()
  const relay = await startTcpRelay(nats.port)
  const dataDir = await mkdtemp(join(tmpdir(), "mds-extractor-"))
  const runtime = ManagedRuntime.make(
    ExtractorLayer.pipe(
      Layer.provideMerge(
        ConfigProvider.layer(
          ConfigProvider.fromEnvRecord({
            NATS_URL: relay.url,
            DATA_DIR: dataDir,
            DOWNLOAD_URL_SECRET: "test-secret",
            PUBLIC_BASE_URL: "http://gateway.test",
            YT_DLP_PATH: YT_DLP,
            ...env
          })
        )
      ),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
  // Runs start cold until the warm runner is ready: tests run on the path production runs take once it is.
  if (env["YT_DLP_WARM_RUNNER"] !== "off") await warmRunnerReady((effect) => runtime.runPromise(effect))
  const client = await connect({ servers: nats.url })
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)
  const direct = ManagedRuntime.make(
    JetStreamEventStore.pipe(
      Layer.provideMerge(NatsClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ NATS_URL: nats.url }))),
      Layer.orDie
    )
  )
  const readJob = (projectId: string, jobId: string) =>
    run(
      Effect.gen(function* () {
        return yield* (yield* EventStore).readSubject(JobEvent, jobSubject(projectId, jobId))
      })
    )
  /** Without a project, as before any project asked; JSON leaves an undefined projectId out. */
  const resolve = async (url: string, projectId?: string, options?: { readonly playlist?: boolean }) =>
    decodeReply(
      (
        await client.request(RESOLVE_RPC_SUBJECT, JSON.stringify({ url, projectId, playlist: options?.playlist }), { timeout: 90_000 })
      ).string()
    )

  return {
    nats,
    relay,
    dataDir,
    client,
    run,
    runOwn: (effect) => direct.runPromise(effect),
    resolve: (url) => resolve(url),
    resolveFor: resolve,
    resolved: async (url) => {
      const reply = await resolve(url)
      if (reply._tag !== "ResolveSucceeded") throw new Error(`resolve failed: ${reply.code} ${reply.message}`)
      return reply.media
    },
    queueJob: async (url, format, mediaId, platform = "generic", projectId = newId("prj"), options, quotaBytesLeft) => {
      const jobId = newId("job")
      const now = Date.now()
      const job: QueuedJob = {
        jobId,
        projectId,
        platform,
        format: parseFormatId(format),
        source: { url, mediaId: mediaId ?? null },
        now,
        lifetimeMs: 3_600_000,
        ...(options === undefined ? {} : { options })
      }
      await run(
        Effect.gen(function* () {
          yield* queueJob(job)
          yield* claimSlot({
            projectId,
            jobId,
            limit: 2,
            ...(quotaBytesLeft === undefined ? {} : { quota: { jobsPerDay: null, bytesPerMonth: 100 * 1024 * 1024 } }),
            now,
            expiresAt: now + 3_600_000
          })
          yield* sendDownloadWork(job, 0, quotaBytesLeft ?? null)
        })
      )
      return { projectId, jobId }
    },
    waitForEnd: async (projectId, jobId, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const events = (await readJob(projectId, jobId)).map((stored) => stored.event)
        if (events.some((e) => e._tag === "JobCompleted" || e._tag === "JobFailed" || e._tag === "JobExpired" || e._tag === "JobCanceled"))
          return events
        await new Promise((r) => setTimeout(r, 250))
      }
      throw new Error(`job ${jobId} did not finish within ${timeoutMs} ms`)
    },
    lastAdmission: async (projectId) =>
      Option.getOrThrow(
        await run(
          Effect.gen(function* () {
            return yield* (yield* EventStore).readLast(AdmissionEvent, admissionSubject(projectId))
          })
        )
      ).event,
    artifactBytes: (key) =>
      run(
        Effect.gen(function* () {
          const opened = yield* (yield* ArtifactStore).open(key)
          return yield* Effect.promise(async () => {
            const chunks: Array<Buffer> = []
            for await (const chunk of opened.body) chunks.push(chunk as Buffer)
            return Buffer.concat(chunks)
          })
        })
      ),
    jobEvents: async (projectId, jobId) => (await readJob(projectId, jobId)).map((stored) => stored.event),
    cancelJob: async (projectId, jobId) => {
      await direct.runPromise(
        Effect.gen(function* () {
          const { state } = yield* jobCommands(projectId, jobId)({ _tag: "CancelJob", jobId, now: Date.now() })
          const reason = slotReleaseOf(state)
          if (reason !== null) yield* releaseSlot(projectId, jobId, reason)
        })
      )
    },
    close: async () => {
      await client.drain().catch(() => undefined)
      await runtime.dispose()
      await direct.dispose()
      await relay.close()
      await nats.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}

/** The local media server and an extractor allowed to reach it, for the tests of one file. */
export interface MediaAndExtractor {
  readonly media: MediaServer
  readonly harness: ExtractorHarness
}

/** Starts the media server and an extractor allowed to reach it (with `env` on top) before the file's tests; closes both after them. */
export const mediaAndExtractor = (env: Readonly<Record<string, string>> = {}): MediaAndExtractor => {
  let media: MediaServer | undefined
  let harness: ExtractorHarness | undefined
  beforeAll(async () => {
    media = await startMediaServer()
    harness = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, ...env })
  })
  afterAll(async () => {
    await harness?.close()
    await media?.close()
  })
  const started = <A>(value: A | undefined, what: string): A => {
    if (value === undefined) throw new Error(`${what} not started: use it inside a test`)
    return value
  }
  return {
    get media() {
      return started(media, "the media server")
    },
    get harness() {
      return started(harness, "the extractor")
    }
  }
}

// Builds gateway apps in-process on a throwaway nats-server, with a fake extractor answering the resolve RPC.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { JobEvent, type JobArtifact } from "@mds/shared/domain/job/JobEvent"
import { type MediaResolved, MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { ResolveReply, ResolveRequest } from "@mds/shared/domain/media/ResolveRpc"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { OtlpTracing } from "@mds/shared/observability/Tracing"
import { EXTRACTOR_CATALOG_SUBJECT, jobSubject, mediaSubject, RESOLVE_RPC_SUBJECT } from "@mds/shared/nats/Subjects"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References, Schema } from "effect"
import type { FastifyInstance } from "fastify"
import { afterAll, beforeAll } from "vitest"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { type NatsServer, startNatsServer } from "../../../test/support/NatsServer.ts"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { makeGatewayLayer } from "../src/GatewayLayer.ts"
import { buildGatewayHttp } from "../src/app/GatewayHttp.ts"
import { JobProjectionStandIn } from "./JobProjectionStandIn.ts"

export const PEPPER = "test-pepper"
export const LINK_SECRET = "test-link-secret"

/** Public names resolve to a documentation address; names under .internal resolve to a private one. */
const fakeDns = async (hostname: string) =>
  hostname.endsWith(".internal") ? [{ address: "10.0.0.7", family: 4 as const }] : [{ address: "93.184.216.34", family: 4 as const }]

export interface GatewayInstance {
  readonly app: FastifyInstance
  readonly runtime: ManagedRuntime.ManagedRuntime<any, never>
  run<A, E>(effect: Effect.Effect<A, E, any>): Promise<A>
  close(): Promise<void>
}

export const gatewayEnv = (nats: NatsServer, dataDir: string): Record<string, string> => ({
  NATS_URL: nats.url,
  API_KEY_PEPPER: PEPPER,
  DOWNLOAD_URL_SECRET: LINK_SECRET,
  DATA_DIR: dataDir,
  PUBLIC_BASE_URL: "http://gateway.test"
})

export const startGateway = async (env: Record<string, string>): Promise<GatewayInstance> => {
  // The job views the gateway mirrors are written by the aggregator, which the harness replaces with a stand-in.
  const layer = JobProjectionStandIn.pipe(Layer.provideMerge(makeGatewayLayer(EgressPolicy.layerWith("", fakeDns)))).pipe(
    // As in main.ts: no spans unless an OTLP endpoint is configured.
    Layer.provideMerge(OtlpTracing("mds-gateway")),
    Layer.provideMerge(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
    Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
    Layer.orDie
  )
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(Effect.void)
  const app = buildGatewayHttp({ runtime })
  await app.ready()
  return {
    app,
    runtime,
    run: (effect) => runtime.runPromise(effect),
    close: async () => {
      await app.close()
      await runtime.dispose()
    }
  }
}

export interface Harness {
  readonly nats: NatsServer
  readonly dataDir: string
  readonly env: Record<string, string>
  readonly gateway: GatewayInstance
  /** Creates a project and a key in it; returns the secret. */
  provisionKey(options?: { scopes?: ReadonlyArray<Scope>; projectId?: string }): Promise<{ key: string; projectId: string }>
  /** How many resolve requests the fake extractor has answered. */
  resolveCount(): number
  /** Appends the extractor catalog (the platforms yt-dlp can extract), as an extractor does at start. */
  publishCatalog(extractors: ReadonlyArray<string>, msgId: string): Promise<void>
  /** Appends what a worker records for a job it ran to the end: JobStarted, then JobCompleted with the artifact. */
  completeJob(projectId: string, jobId: string, artifact: JobArtifact): Promise<void>
  close(): Promise<void>
}

/** The media the fake extractor reports for a URL; what a real extractor would also append to the media stream. */
export const fakeMedia = (url: string, now: number): MediaResolved =>
  resolvedMedia({
    url,
    webpageUrl: url,
    formats: [
      { id: "video_best", type: "video", quality: "1080p", container: "mp4" },
      { id: "audio_m4a", type: "audio", quality: "128k", container: "m4a" }
    ],
    resolvedAt: now,
    expiresAt: now + 3_600_000
  })

const decodeRequest = Schema.decodeUnknownSync(Schema.fromJsonString(ResolveRequest))
const encodeReply = Schema.encodeSync(Schema.fromJsonString(ResolveReply))

/**
 * Answers resolve requests like an extractor: URLs containing "private" are unavailable, "broken" fail, "/feed" lists
 * entries, "upcoming" are streams that have not begun.
 */
export const startFakeExtractor = async (url: string, gateway: GatewayInstance) => {
  const connection: NatsConnection = await connect({ servers: url })
  let answered = 0
  const subscription = connection.subscribe(RESOLVE_RPC_SUBJECT, {
    queue: "extractor",
    callback: (_error, message) => {
      void (async () => {
        const request = decodeRequest(message.string())
        answered++
        if (request.url.includes("private")) {
          message.respond(encodeReply({ _tag: "ResolveRejected", code: "media_unavailable", message: "This video is private." }))
          return
        }
        if (request.url.includes("broken")) {
          message.respond(encodeReply({ _tag: "ResolveRejected", code: "extraction_failed", message: "yt-dlp failed." }))
          return
        }
        const resolved = fakeMedia(request.url, Date.now())
        // Extension: a URL with "upcoming" in it is a stream announced for an hour later.
        const single: MediaResolved = request.url.includes("upcoming")
          ? { ...resolved, liveStatus: "is_upcoming", releaseAt: Date.now() + 3_600_000 }
          : resolved
        // A playlist resolve of a URL with "/feed" in it answers a playlist of two entries.
        const media: MediaResolved =
          request.playlist === true && request.url.includes("/feed")
            ? {
                ...single,
                type: "playlist",
                entries: ["1", "2"].map((n) => ({ id: `ent_${n}`, url: `${request.url}/${n}.mp3`, title: `Episode ${n}`, duration: 60 }))
              }
            : single
        await gateway.run(
          Effect.gen(function* () {
            const store = yield* EventStore
            yield* store.append(MediaEvent, mediaSubject(media.mediaId), media, { msgId: media.mediaId })
          })
        )
        message.respond(encodeReply({ _tag: "ResolveSucceeded", media }))
      })()
    }
  })
  return {
    count: () => answered,
    close: async () => {
      subscription.unsubscribe()
      // After a NATS restart the connection may still be reconnecting; draining it then fails, harmlessly.
      await connection.drain().catch(() => connection.close())
    }
  }
}

/** `env` adds to or overrides the gateway's settings (e.g. its limits). */
export const startHarness = async (extraEnv: Readonly<Record<string, string>> = {}): Promise<Harness> => {
  const nats = await startNatsServer()
  const dataDir = await mkdtemp(join(tmpdir(), "mds-gateway-"))
  const env = { ...gatewayEnv(nats, dataDir), ...extraEnv }
  const gateway = await startGateway(env)
  const extractor = await startFakeExtractor(nats.url, gateway)
  const provisionKey: Harness["provisionKey"] = async (options) => {
    const projectId = options?.projectId ?? (await gateway.run(runAdminCommand({ _tag: "CreateProject", name: "test" })))
    const key = await gateway.run(
      runAdminCommand({
        _tag: "CreateKey",
        projectId,
        name: "test key",
        scopes: options?.scopes ?? ["media:resolve", "media:download"],
        environment: "test"
      })
    )
    return { key, projectId }
  }
  return {
    nats,
    dataDir,
    env,
    gateway,
    provisionKey,
    resolveCount: extractor.count,
    publishCatalog: (extractors, msgId) =>
      gateway.run(
        Effect.gen(function* () {
          const store = yield* EventStore
          yield* store.append(
            ExtractorCatalogPublished,
            EXTRACTOR_CATALOG_SUBJECT,
            { _tag: "ExtractorCatalogPublished", v: 1, ytDlpVersion: "2026.10.26", extractors, at: Date.now() },
            { msgId }
          )
        })
      ),
    completeJob: (projectId, jobId, artifact) =>
      gateway.run(
        Effect.gen(function* () {
          const store = yield* EventStore
          const subject = jobSubject(projectId, jobId)
          const now = Date.now()
          const started = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w1", at: now } as const
          yield* store.append(JobEvent, subject, started, { msgId: `${jobId}:started` })
          yield* store.append(
            JobEvent,
            subject,
            { _tag: "JobCompleted", v: 1, jobId, artifact, at: now + 1 },
            { msgId: `${jobId}:completed` }
          )
        })
      ),
    close: async () => {
      await extractor.close()
      await gateway.close()
      await nats.close()
      await rm(dataDir, { recursive: true, force: true })
    }
  }
}

/** A spec file's harness; its fields are set once the file's beforeAll has run. */
export interface FileHarness {
  readonly h: Harness
  /** With `key`: a key in a project of its own. */
  readonly key: string
  /** With `second`: a second gateway on the same NATS, as a replica would run. */
  readonly second: GatewayInstance
}

/** Starts a harness before the spec file's tests (with a key, a second gateway) and closes it all after them. */
export const useHarness = (options: { readonly key?: boolean; readonly second?: boolean } = {}): FileHarness => {
  const file: { -readonly [K in keyof FileHarness]?: FileHarness[K] } = {}
  beforeAll(async () => {
    const h = await startHarness()
    file.h = h
    if (options.key) file.key = (await h.provisionKey()).key
    if (options.second) file.second = await startGateway(h.env)
  })
  afterAll(async () => {
    await file.second?.close()
    await file.h?.close()
  })
  return file as FileHarness
}

// Extension: a scheduled stream's wait survives an aggregator restart, on a real nats-server: the live-wait reactor
// probes it (not begun yet) and records its next probe; the aggregator stops; the stream begins; a new aggregator is
// woken by the durable timer (the schedule event's message, or its reconcile at start), finds it live and admits it
// as a new download (JobLiveBegan with its claim, a held slot, a work message), while it held no slot before.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { projectCommands } from "@mds/shared/application/account/AccountCommands"
import { currentAdmission } from "@mds/shared/application/admission/AdmissionCommands"
import { scheduleJob } from "@mds/shared/application/job/ScheduleJob"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { ResolveReply, ResolveRequest } from "@mds/shared/domain/media/ResolveRpc"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { downloadWorkSubject, jobSubject, RESOLVE_RPC_SUBJECT } from "@mds/shared/nats/Subjects"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { eventually } from "../../support/Eventually.ts"
import { type NatsServer, startNatsServer } from "../../support/NatsServer.ts"

const projectId = "prj_livewait"
const jobId = "job_livewait0000000000000001"
const url = "https://live.example/premiere"

let nats: NatsServer
let dataDir: string
let host: ManagedRuntime.ManagedRuntime<EventStore | NatsClient | Lifetimes | LiveWait, never>
let extractor: NatsConnection
/** What the stand-in extractor says of the stream: the test flips it. */
let streamBegun = false
let probes = 0

const config = () =>
  Layer.mergeAll(
    ConfigProvider.layer(
      ConfigProvider.fromEnvRecord({
        NATS_URL: nats.url,
        DATA_DIR: dataDir,
        DOWNLOAD_URL_SECRET: "test-secret",
        API_KEY_PEPPER: "test-pepper",
        PUBLIC_BASE_URL: "http://files.test",
        // Probes half a second apart, not a minute (the floor's test value); the reconcile only at start.
        LIVE_PROBE_MIN_SECONDS: "0.5",
        LIVE_WAIT_RECONCILE_SECONDS: "3600"
      })
    ),
    Layer.succeed(References.MinimumLogLevel, "Error")
  )

const media = (): MediaResolved => ({
  _tag: "MediaResolved",
  v: 1,
  mediaId: "med_livewait",
  url,
  webpageUrl: url,
  platform: "generic",
  type: "video",
  title: "Premiere",
  thumbnail: "",
  duration: 0,
  author: { name: "", username: "" },
  formats: [],
  resolvedAt: Date.now(),
  expiresAt: Date.now() + 3_600_000,
  ...(streamBegun ? { liveStatus: "is_live" as const } : { liveStatus: "is_upcoming" as const, releaseAt: Date.now() + 1_000 })
})

beforeAll(async () => {
  nats = await startNatsServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-livewait-"))
  host = ManagedRuntime.make(
    Layer.effectDiscard(ensureStreams).pipe(
      Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Lifetimes.layer, LiveWait.layer)),
      Layer.provideMerge(NatsClient.layer),
      Layer.provideMerge(config()),
      Layer.orDie
    )
  )
  await host.runPromise(Effect.void)
  // A stand-in extractor on the resolve RPC.
  extractor = await connect({ servers: nats.url })
  const decode = Schema.decodeUnknownSync(Schema.fromJsonString(ResolveRequest))
  const encode = Schema.encodeSync(Schema.fromJsonString(ResolveReply))
  extractor.subscribe(RESOLVE_RPC_SUBJECT, {
    queue: "extractor",
    callback: (_error, message) => {
      if (decode(message.string()).url !== url) return
      probes++
      message.respond(encode({ _tag: "ResolveSucceeded", media: media() }))
    }
  })
  await host.runPromise(projectCommands(projectId)({ _tag: "CreateProject", projectId, name: "live", owner: null, now: Date.now() }))
}, 60_000)

afterAll(async () => {
  await extractor?.close()
  await host?.dispose()
  await nats?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

const eventsOfJob = () =>
  host.runPromise(
    Effect.map(
      EventStore.use((store) => store.readSubject(JobEvent, jobSubject(projectId, jobId))),
      (s) => s.map((e) => e.event)
    )
  )
const slotsHeld = () => host.runPromise(Effect.map(currentAdmission(projectId), ({ state }) => liveSlots(state, Date.now())))
const startAggregator = async () => {
  const runtime = ManagedRuntime.make(AggregatorLayer.pipe(Layer.provideMerge(config()), Layer.orDie))
  await runtime.runPromise(Effect.void)
  return runtime
}

describe("a scheduled stream across an aggregator restart", () => {
  it("is probed, waits holding no slot, and is admitted by the next aggregator once it began", async () => {
    const job = {
      jobId,
      projectId,
      platform: "generic",
      format: parseFormatId("video_best"),
      source: { url, mediaId: null },
      now: Date.now(),
      lifetimeMs: 3_600_000
    }
    await host.runPromise(scheduleJob(job, Date.now() + 1_000))

    const first = await startAggregator()
    const probed = await eventually(
      async () => (await eventsOfJob()).filter((e) => e._tag === "JobLiveProbed"),
      (events) => events.length >= 1,
      "the first aggregator's probe",
      30_000
    )
    expect(probed.every((e) => e._tag === "JobLiveProbed" && e.outcome === "not_live")).toBe(true)
    expect(await slotsHeld()).toEqual([])
    await first.dispose()

    streamBegun = true
    const before = probes
    const second = await startAggregator()
    try {
      await eventually(
        eventsOfJob,
        (events) => events.some((e) => e._tag === "JobLiveBegan"),
        "the second aggregator to begin the job",
        30_000
      )
      expect(probes).toBeGreaterThan(before)
      const began = (await eventsOfJob()).find((e) => e._tag === "JobLiveBegan")
      const held = await slotsHeld()
      expect(held.map((slot) => slot.jobId)).toEqual([jobId])
      expect(began?._tag === "JobLiveBegan" && began.claim).toBe(held[0]?.claim)
      const work = await host.runPromise(EventStore.use((store) => store.readSubject(DownloadMedia, downloadWorkSubject(projectId, jobId))))
      expect(work.map((w) => w.event.jobId)).toEqual([jobId])
    } finally {
      await second.dispose()
    }
  }, 90_000)
})

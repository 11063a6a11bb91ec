// The batch feeder on a real nats-server, in the orderings that stalled it: a slot freed after the job's end, a
// record stored after the job ended or after the batch was canceled, and entries left unfed past the batch's end.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Option, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { claimSlot, releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import { BatchDecider } from "@mds/shared/domain/batch/BatchDecider"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { isBatchDone, progressOf } from "@mds/shared/domain/batch/BatchState"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject, BATCHES_STREAM, batchSubject, JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { foldJobEvents } from "@mds/shared/application/job/JobStates"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { AggregatorLayer } from "../src/AggregatorLayer.ts"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { BATCH_EVENTS_DURABLE, BATCH_JOB_EVENTS_DURABLE } from "../src/batches/BatchFeeder.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { jobCompleted, jobQueued, jobStarted } from "../../../test/support/JobEvents.ts"
import { type NatsServer, startNatsServer } from "../../../test/support/NatsServer.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

type Services = EventStore | NatsClient

let nats: NatsServer
let dataDir: string
let runtime: ManagedRuntime.ManagedRuntime<Services, never>
const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

const startAggregator = (reconcileSeconds: number) =>
  ManagedRuntime.make(
    AggregatorLayer.pipe(
      Layer.provideMerge(
        ConfigProvider.layer(
          ConfigProvider.fromEnvRecord({
            NATS_URL: nats.url,
            DATA_DIR: dataDir,
            DOWNLOAD_URL_SECRET: "test-secret",
            API_KEY_PEPPER: "test-pepper",
            PUBLIC_BASE_URL: "http://files.test",
            BATCH_RECONCILE_INTERVAL_SECONDS: String(reconcileSeconds)
          })
        )
      ),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )

beforeAll(async () => {
  nats = await startNatsServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-batches-"))
  // Only events wake the feeder in these tests: its reconcile must not hide a missed wake-up.
  runtime = startAggregator(3600)
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
  await nats?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

const LIMIT = 2
const CLIP: DownloadOptions = { section: { start: 5, end: 10, precise: false }, container: "mkv", subtitles: ["en"] }
const HOUR = 3_600_000
const entries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ entryId: `e${i + 1}`, url: `https://example.com/${i + 1}.mp3`, title: `Episode ${i + 1}` }))

const createBatch = (projectId: string, batchId: string, count: number, at = Date.now(), lifetimeMs = HOUR, options?: DownloadOptions) =>
  run(
    batchCommands(
      projectId,
      batchId
    )({
      _tag: "CreateBatch",
      batchId,
      projectId,
      mediaId: newId("med"),
      platform: "generic",
      format: parseFormatId("audio_m4a"),
      entries: entries(count),
      now: at,
      lifetimeMs,
      ...(options === undefined ? {} : { options })
    })
  )

const batchEvents = (projectId: string, batchId: string) =>
  run(
    Effect.gen(function* () {
      return yield* (yield* EventStore).readSubject(BatchEvent, batchSubject(projectId, batchId))
    })
  )

const batchState = async (projectId: string, batchId: string) =>
  (await batchEvents(projectId, batchId)).reduce((state, item) => BatchDecider.evolve(state, item.event), BatchDecider.initialState())

const entryProgress = async (projectId: string, batchId: string, entryId: string) =>
  progressOf(await batchState(projectId, batchId), entryId)

const appendJob = (projectId: string, jobId: string, event: JobEvent) =>
  run(
    Effect.gen(function* () {
      return (yield* (yield* EventStore).append(JobEvent, jobSubject(projectId, jobId), event, { msgId: `${event._tag}:${jobId}` })).seq
    })
  )

const jobState = (projectId: string, jobId: string) =>
  run(
    Effect.gen(function* () {
      return foldJobEvents(null, yield* (yield* EventStore).readSubject(JobEvent, jobSubject(projectId, jobId)))
    })
  )

const heldSlots = (projectId: string) =>
  run(
    Effect.gen(function* () {
      const last = yield* (yield* EventStore).readLast(AdmissionEvent, admissionSubject(projectId))
      return Option.match(last, {
        onNone: () => [],
        onSome: ({ event }) => liveSlots({ held: event.held }, Date.now()).map((s) => s.jobId)
      })
    })
  )

const claim = (projectId: string, jobId: string) =>
  run(claimSlot({ projectId, jobId, limit: LIMIT, now: Date.now(), expiresAt: Date.now() + HOUR }))

/** The last stream sequence of a subject: what a consumer must have acknowledged to have handled it. */
const lastSeq = (stream: string, subject: string) =>
  run(
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      return yield* Effect.promise(() => jsm.streams.getMessage(stream, { last_by_subj: subject }).then((m) => m?.seq ?? 0))
    })
  )

/** Waits until the durable consumer acknowledged every message up to `seq` (it handled them, whatever it did). */
const handled = (stream: string, durable: string, seq: number) =>
  eventually(
    () =>
      run(
        Effect.gen(function* () {
          const { jsm } = yield* NatsClient
          return yield* Effect.promise(() => jsm.consumers.info(stream, durable))
        })
      ),
    (info) => info.ack_floor.stream_seq >= seq,
    `${durable} to handle up to ${seq}`
  )

describe("batch feeder", () => {
  it("feeds the next entry when the slot frees after the feeder already handled the job's end", async () => {
    const projectId = newId("prj")
    const batchId = newId("bat")
    const [running, ending] = [newId("job"), newId("job")]
    // The project is full with two downloads of its own.
    await claim(projectId, running)
    await claim(projectId, ending)
    await createBatch(projectId, batchId, 1, Date.now(), HOUR, CLIP)
    await handled(BATCHES_STREAM.name, BATCH_EVENTS_DURABLE, await lastSeq(BATCHES_STREAM.name, batchSubject(projectId, batchId)))
    expect((await entryProgress(projectId, batchId, "e1"))._tag).toBe("Pending")

    // One download ends; the feeder handles its end while the slot is still held...
    const now = Date.now()
    await appendJob(projectId, ending, jobQueued(projectId, ending, now))
    await appendJob(projectId, ending, jobStarted(ending, now + 1))
    const endSeq = await appendJob(projectId, ending, jobCompleted(projectId, ending, now + 2))
    await handled(JOBS_STREAM.name, BATCH_JOB_EVENTS_DURABLE, endSeq)
    expect((await entryProgress(projectId, batchId, "e1"))._tag).toBe("Pending")

    // ...and only then its releaser frees the slot: the entry is fed into it.
    await run(releaseSlot(projectId, ending, "completed"))
    const progress = await eventually(
      () => entryProgress(projectId, batchId, "e1"),
      (p) => p._tag === "Queued",
      "the entry fed into the freed slot",
      10_000
    )
    expect(progress).toEqual({ _tag: "Queued", jobId: entryJobId(batchId, "e1") })
    expect(await heldSlots(projectId)).toEqual([running, entryJobId(batchId, "e1")])
    const job = await jobState(projectId, entryJobId(batchId, "e1"))
    expect(jobStatus(job)).toBe("queued")
    // Queued with the batch's options, as a single download with them would be.
    expect(job?.options).toEqual(CLIP)
  })

  it("an entry whose job ended before its record was stored finishes with the job, and holds no slot", async () => {
    const projectId = newId("prj")
    const batchId = newId("bat")
    const jobId = entryJobId(batchId, "e1")
    // The feed queued e1's job, then its record failed; the job ran to its end before the feed was retried.
    const now = Date.now()
    await appendJob(projectId, jobId, jobQueued(projectId, jobId, now, { batch: { batchId, entryId: "e1" } }))
    await appendJob(projectId, jobId, jobStarted(jobId, now + 1))
    await appendJob(projectId, jobId, jobCompleted(projectId, jobId, now + 2))
    // The retried feed's claim came after the worker had freed the slot: the ended job holds one again.
    await claim(projectId, jobId)
    await createBatch(projectId, batchId, 1)

    const progress = await eventually(
      () => entryProgress(projectId, batchId, "e1"),
      (p) => p._tag === "Finished",
      "the entry finished with its job",
      10_000
    )
    expect(progress).toMatchObject({ _tag: "Finished", jobId, outcome: "completed" })
    expect(
      await eventually(
        () => heldSlots(projectId),
        (held) => held.length === 0,
        "the ended job's slot freed"
      )
    ).toEqual([])
  })

  it("a job recorded for an entry after its batch was canceled is canceled too", async () => {
    const projectId = newId("prj")
    const batchId = newId("bat")
    // A full project: nothing is fed, so the order below is the test's own.
    await claim(projectId, newId("job"))
    await claim(projectId, newId("job"))
    await createBatch(projectId, batchId, 2)
    const jobId = entryJobId(batchId, "e1")
    // A feed that read the batch before its cancel queues e1's job; the cancel lands; then the feed's record.
    await appendJob(projectId, jobId, jobQueued(projectId, jobId, Date.now(), { batch: { batchId, entryId: "e1" } }))
    await run(batchCommands(projectId, batchId)({ _tag: "CancelBatch", batchId, now: Date.now() }))
    await run(batchCommands(projectId, batchId)({ _tag: "RecordEntryQueued", batchId, entryId: "e1", jobId, now: Date.now() }))

    const state = await eventually(
      () => jobState(projectId, jobId),
      (s) => jobStatus(s) === "canceled",
      "the entry's job canceled",
      10_000
    )
    expect(jobStatus(state)).toBe("canceled")
    const progress = await eventually(
      () => entryProgress(projectId, batchId, "e1"),
      (p) => p._tag === "Finished",
      "the canceled entry finished",
      10_000
    )
    expect(progress).toMatchObject({ _tag: "Finished", jobId, outcome: "failed" })
  })

  it("entries not fed before the batch's end fail with code expired, and the batch completes", async () => {
    const projectId = newId("prj")
    const batchId = newId("bat")
    // Created with a lifetime that is already over: nothing may be fed any more.
    await createBatch(projectId, batchId, 2, Date.now() - 10_000, 5_000)
    const events = await eventually(
      () => batchEvents(projectId, batchId),
      (stored) => stored.length > 1,
      "the unfed entries ended",
      10_000
    )
    expect(events.map((s) => s.event._tag)).toEqual(["BatchCreated", "BatchEntriesExpired"])
    const state = await batchState(projectId, batchId)
    expect(state.entries.map((e) => progressOf(state, e.entryId))).toEqual([{ _tag: "Expired" }, { _tag: "Expired" }])
    expect(await heldSlots(projectId)).toEqual([])
  })
})

describe("batch feeder's reconcile", () => {
  it("ends the unfed entries of a batch whose end passes with no event, on its timer", async () => {
    const projectId = newId("prj")
    const batchId = newId("bat")
    // A full project and no event after the batch's creation: only the reconcile can see its end pass.
    await claim(projectId, newId("job"))
    await claim(projectId, newId("job"))
    await createBatch(projectId, batchId, 2, Date.now(), 1_500)
    await handled(BATCHES_STREAM.name, BATCH_EVENTS_DURABLE, await lastSeq(BATCHES_STREAM.name, batchSubject(projectId, batchId)))
    expect((await entryProgress(projectId, batchId, "e1"))._tag).toBe("Pending")

    await runtime.dispose()
    runtime = startAggregator(0.2)
    const state = await eventually(
      () => batchState(projectId, batchId),
      (s) => isBatchDone(s),
      "the batch over once its end passed",
      10_000
    )
    expect(state.entries.map((e) => progressOf(state, e.entryId)._tag)).toEqual(["Expired", "Expired"])
  })
})

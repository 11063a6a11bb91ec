// The lifecycle model's world: the service's own steps (gateway, worker, reactors) over in-memory ports with the
// JetStream semantics they rely on, driven one step at a time. Every write waits for the model's say; what each
// process wrote is kept, for the invariants.
import { Effect, Exit, Layer, Option, Scope } from "effect"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { projectCommands } from "@mds/shared/application/account/AccountCommands"
import { releaseFinished } from "@mds/shared/application/admission/AdmitJob"
import { AdmissionStates } from "@mds/shared/application/admission/AdmissionStates"
import { currentAdmission } from "@mds/shared/application/admission/AdmissionCommands"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { cancelJob } from "@mds/shared/application/job/CancelJob"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { stopRecording } from "@mds/shared/application/job/StopRecording"
import {
  awaitStreamStart,
  completeRun,
  failRun,
  type RunEnd,
  startRun,
  stopCanceledRun,
  stopExpiredRun
} from "@mds/shared/application/job/JobRun"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { queueNewJob } from "@mds/shared/application/job/QueueNewJob"
import { retryJob } from "@mds/shared/application/job/RetryJob"
import { expireJob } from "@mds/shared/application/job/ExpireJob"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { scheduleJob } from "@mds/shared/application/job/ScheduleJob"
import { LiveProbe } from "../../services/aggregator/src/live/LiveProbe.ts"
import { makeLiveWaitRound } from "../../services/aggregator/src/live/LiveWaitRound.ts"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { hasEnded, isAwaitingDelivery, jobStatus, evolveJobView } from "@mds/shared/domain/job/JobState"
import { keptOfLostRecording } from "@mds/shared/domain/job/JobRecording"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { makeInMemoryEventStore, type StoredMessage } from "@mds/shared/eventstore/InMemoryEventStore"
import { InMemoryJobReadModel } from "@mds/shared/readmodel/memory/InMemoryJobReadModel"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { Schema } from "effect"
import { feedBatch } from "../../services/aggregator/src/batches/FeedRound.ts"
import { makeRetryRound } from "../../services/aggregator/src/jobs/RetryRound.ts"
import { react as sweepReact } from "../../services/aggregator/src/expiry/SweepActions.ts"
import type { Action, RunOutcome } from "./Actions.ts"
import { ModelClock } from "./ModelClock.ts"
import { type ProcessInfo, Processes } from "./Processes.ts"
import { WorkQueue } from "./WorkQueue.ts"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import type { FeedResolver } from "../../services/aggregator/src/subscriptions/FeedResolver.ts"
import { changeSubscription, type FollowedFeed, ModelFeeds, subscribe, subscriptionRound } from "./Subscriptions.ts"
import { deliverJob } from "@mds/shared/application/job/DeliverJob"
import { retainSubscription } from "@mds/shared/application/job/RetainDeliveries"
import { subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import type { DeliveryDestinations } from "@mds/shared/application/job/DeliveryDestinations"
import type { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { ModelDestination } from "./ModelDestination.ts"

export const PROJECTS = ["prj_model_a", "prj_model_b"] as const
export const SLOTS = 2
export const JOB_LIFETIME_MS = 3_600_000
export const ACK_WAIT_MS = 60_000
export const MAX_ATTEMPTS = 3
export const RETRIES = { maxRetries: 2, backoffMs: 10_000 }
/** A Monday in the middle of a month, 10:00 UTC: a model history never crosses a day's or a month's end. */
export const START_MS = Date.UTC(2026, 10, 16, 10, 0, 0)
const NAK_DELAY_MS = 5_000
/** Extension: a scheduled job waits at most 2 h here (LIVE_WAIT_MAX_SECONDS), so a history's ticks can run it out. */
export const LIVE_WAIT = { waitMaxMs: 7_200_000, probeMinMs: 60_000, probeMaxMs: 3_600_000 }
/** A failed delivery attempt is tried again after these delays; then the job fails. */
export const DELIVERY_RETRY_DELAYS_MS = [10_000, 60_000]
export const MODEL_DESTINATION = "dst_modelmodelmodelmodelmode"
/** The subscription every delivering download of the model is an entry of, kept to its last entry by RetentionRound. */
export const RETAINED_SUBSCRIPTION = "sub_modelretainedmodelretai"

/** A worker's run of one delivery of a work message, as the model follows it. */
export interface Run {
  readonly id: number
  readonly process: ProcessInfo
  readonly seq: number
  readonly work: DownloadMedia
  readonly outcome: RunOutcome
  /** Set once its StartJob was recorded: the attempt it started. */
  attempt: number | null
  /** Its download is under way and waits for the model to end it. */
  finish: (() => void) | null
  /** It stopped heartbeating (a pause, a lost connection) but goes on. */
  stalled: boolean
  /** Extension: the parts of its recording it kept in the artifact store so far. */
  kept: number
  ended: boolean
}

/** Who wrote a stored message: the process whose write the model let happen. */
export interface Written {
  readonly message: StoredMessage
  readonly writer: ProcessInfo
  readonly run: Run | null
}

const decodeWork = Schema.decodeUnknownSync(DownloadMedia)

/** A job with a destination says where its file and sidecar go: the run rendered its template. */
const deliveryOf = (work: DownloadMedia, key: string) =>
  work.options?.delivery === undefined
    ? undefined
    : {
        path: `Model Channel/${work.jobId}.mp4`,
        sidecars: [{ key: `${key}.nfo`, path: `Model Channel/${work.jobId}.nfo`, contentType: "text/xml" }]
      }

export class World {
  readonly clock = new ModelClock(START_MS)
  readonly processes = new Processes(this.clock)
  readonly store = makeInMemoryEventStore({ beforeAppend: this.processes.beforeAppend })
  readonly queue = new WorkQueue("mds.work.download.", ACK_WAIT_MS, () => this.store.messages(), this.store.remove)
  /** Jobs a client knows of (its 202s, its batches' entries): what cancels and retries act on. */
  readonly jobs: Array<{ readonly projectId: string; readonly jobId: string }> = []
  readonly batches: Array<{ readonly projectId: string; readonly batchId: string }> = []
  /** Subscriptions clients made, and the feeds they follow (which the model grows). */
  readonly subscriptions: Array<FollowedFeed> = []
  readonly feeds = new ModelFeeds()
  /** The destination downloads with one are delivered into. */
  readonly destination = new ModelDestination()
  /** How many messages the store held when each process began (what it could have read). */
  readonly spawnedAt = new Map<number, number>()
  readonly runs: Array<Run> = []
  readonly written: Array<Written> = []
  /**
   * Whether a fault happened so far (a crash, a write NATS refused, a run that stopped heartbeating): what it left
   * undone is the reconcilers' to finish, so the invariants of quiet moments wait for everything to settle.
   */
  disturbed = false
  /** Extension: what the live-wait round's probe answers next. */
  nextProbe: "live" | "not_live" | "failed" = "not_live"
  private projected = 0
  /** Jobs past their lifetime (JobRecordsGone): their events and document gone, listed by no reactor. */
  private readonly gone = new Set<string>()
  private nextId = 1
  private readonly runOf = new Map<number, Run>()
  private readonly context
  private readonly gateways

  constructor() {
    const base = Layer.mergeAll(
      Layer.succeed(EventStore, this.store.service),
      Layer.succeed(Lifetimes, {
        mediaMs: JOB_LIFETIME_MS,
        jobMs: JOB_LIFETIME_MS,
        downloadUrlMs: JOB_LIFETIME_MS,
        maxConcurrentJobs: SLOTS
      }),
      InMemoryJobReadModel.layer,
      Layer.succeed(LiveWait, LIVE_WAIT),
      // What the next live-wait round's probe finds (the LiveRound step says).
      Layer.succeed(LiveProbe, { probe: () => Effect.sync(() => ({ outcome: this.nextProbe })) })
    )
    const services = Layer.mergeAll(
      JobStates.layer,
      ProjectQuotaReader.layer,
      // Subscriptions are read by replaying their subjects (an empty read model: no snapshot).
      SubscriptionStates.layer.pipe(Layer.provide(InMemorySubscriptionReadModel.layer)),
      this.feeds.layer,
      this.destination.layer
    ).pipe(Layer.provideMerge(base))
    const scope = Effect.runSync(Scope.make())
    this.context = Effect.runSync(Layer.buildWithScope(services, scope))
    // Two gateways, each remembering the admission states it saw (AdmissionStates), as the real ones do.
    this.gateways = [0, 1].map(() => Effect.runSync(Layer.buildWithScope(AdmissionStates.layer, scope)))
    for (const projectId of PROJECTS) {
      Effect.runSync(
        projectCommands(projectId)({ _tag: "CreateProject", projectId, name: projectId, owner: null, now: START_MS }).pipe(
          Effect.provide(this.context)
        )
      )
    }
  }

  private newId(prefix: string): string {
    return `${prefix}_model${String(this.nextId++).padStart(4, "0")}`
  }

  /** Runs a process in the world's services (and a gateway's admission cache); its writes wait for the model. */
  private spawn<A, E>(
    label: string,
    projectId: string,
    effect: Effect.Effect<
      A,
      E,
      | EventStore
      | Lifetimes
      | JobStates
      | ProjectQuotaReader
      | JobReadModel
      | SubscriptionStates
      | FeedResolver
      | LiveWait
      | LiveProbe
      | DeliveryDestinations
      | ArtifactStore
    >,
    gateway: number | null,
    onExit?: (exit: Exit.Exit<A, E>) => void
  ): ProcessInfo {
    const withGateway = gateway === null ? effect : effect.pipe(Effect.provide(this.gateways[gateway]!))
    const began = this.store.messages().length
    const process = this.processes.spawn(label, projectId, withGateway.pipe(Effect.provide(this.context)), onExit)
    this.spawnedAt.set(process.pid, began)
    return process
  }

  /** Lets a write happen (or fails it) and notes who wrote what it stored. */
  private write(gateId: number, outcome: "write" | "fail"): void {
    const gate = this.processes.pendingGates().find((g) => g.id === gateId)
    if (gate === undefined) return
    const before = this.store.messages().length
    // A write takes a moment too: no two of them share a millisecond.
    this.clock.advance(1)
    this.processes.advance(gateId, outcome)
    const after = this.store.messages()
    const run = [...this.runOf.values()].find((r) => r.process.pid === gate.process.pid) ?? null
    for (let i = before; i < after.length; i++) {
      const message = after[i]!
      this.written.push({ message, writer: gate.process, run })
      // A subscription's check made a batch: the feeder rounds and the clients (its job ids are in the webhook) see it.
      const payload = message.payload as {
        readonly _tag?: string
        readonly subscriptionId?: string
        readonly batchId?: string
        readonly projectId?: string
      }
      if (payload._tag === "BatchCreated" && payload.subscriptionId !== undefined && payload.batchId !== undefined) {
        const projectId = payload.projectId ?? ""
        const batchId = payload.batchId
        this.batches.push({ projectId, batchId })
        for (const entry of (message.payload as { readonly entries: ReadonlyArray<{ readonly entryId: string }> }).entries)
          this.jobs.push({ projectId, jobId: entryJobId(batchId, entry.entryId) })
      }
    }
  }

  private at<T>(list: ReadonlyArray<T>, index: number): T | undefined {
    return list.length === 0 ? undefined : list[index % list.length]
  }

  /** Every job the job stream holds, known to a client or not: what the reactors' reconciles list. */
  allJobs(): ReadonlyArray<{ readonly projectId: string; readonly jobId: string }> {
    const subjects = new Set(
      this.store
        .messages()
        .filter((m) => m.stream === "MDS_JOBS")
        .map((m) => m.subject)
    )
    return [...subjects].flatMap((subject) => Option.toArray(jobSubject.parse(subject)))
  }

  /** Runs that have not ended (their process runs or waits), crashed ones excluded. */
  /** Live runs whose job records on their attempt: the runs a recording's worker makes. */
  recordingRuns(): ReadonlyArray<Run> {
    const states = this.jobStates()
    return this.liveRuns().filter(
      (r) => r.attempt !== null && states.get(jobSubject(r.work.projectId, r.work.jobId))?.recording?.attempt === r.attempt
    )
  }

  liveRuns(): ReadonlyArray<Run> {
    return this.runs.filter((run) => !run.ended && this.processes.statusOf(run.process.pid) === "running")
  }

  apply(step: Action): void {
    // Every step takes a moment: no two writes of the model share a millisecond (ids that carry a command's time rely
    // on a clock that moves, as a real one does).
    this.processes.advanceClock(1)
    switch (step._tag) {
      case "Download": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        const jobId = this.newId("job")
        const job = {
          jobId,
          projectId,
          platform: "generic",
          format: parseFormatId("video_best"),
          source: { url: `https://media.example/${jobId}.mp4`, mediaId: null },
          now: this.clock.now,
          lifetimeMs: JOB_LIFETIME_MS,
          ...(step.destination
            ? {
                options: {
                  delivery: {
                    destinationId: MODEL_DESTINATION,
                    pathTemplate: "{uploader}/{title} [{id}].{ext}",
                    sidecars: ["nfo" as const],
                    // Every delivering download is an entry of the project's retained subscription (RetentionRound).
                    library: { subscriptionId: RETAINED_SUBSCRIPTION, title: "Model Channel" }
                  }
                }
              }
            : {})
        }
        this.spawn("download", projectId, queueNewJob(job), step.gateway, (exit) => {
          if (Exit.isSuccess(exit)) this.jobs.push({ projectId, jobId })
        })
        return
      }
      case "DownloadUpcoming": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        const jobId = this.newId("job")
        const job = {
          jobId,
          projectId,
          platform: "generic",
          format: parseFormatId("video_best"),
          source: { url: `https://live.example/${jobId}.m3u8`, mediaId: null },
          now: this.clock.now,
          lifetimeMs: JOB_LIFETIME_MS
        }
        this.spawn("download upcoming", projectId, scheduleJob(job, this.clock.now + step.startsInMs), step.gateway, (exit) => {
          if (Exit.isSuccess(exit)) this.jobs.push({ projectId, jobId })
        })
        return
      }
      case "LiveRound": {
        const job = this.at(this.allJobs(), step.job)
        if (job === undefined) return
        this.nextProbe = step.probe
        const round = Effect.flatMap(makeLiveWaitRound, (run) => run(job, "Reconcile"))
        this.spawn("live wait", job.projectId, round, null)
        return
      }
      case "Batch": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        const batchId = this.newId("bat")
        const entries = Array.from({ length: step.entries }, (_, i) => ({
          entryId: `e${i + 1}`,
          url: `https://media.example/${batchId}/${i + 1}.mp4`,
          title: `entry ${i + 1}`
        }))
        const create = batchCommands(
          projectId,
          batchId
        )({
          _tag: "CreateBatch",
          batchId,
          projectId,
          mediaId: `med_${batchId}`,
          platform: "generic",
          format: parseFormatId("video_best"),
          entries,
          now: this.clock.now,
          lifetimeMs: JOB_LIFETIME_MS
        })
        this.spawn("batch", projectId, create, null, (exit) => {
          if (!Exit.isSuccess(exit)) return
          this.batches.push({ projectId, batchId })
          for (const entry of entries) this.jobs.push({ projectId, jobId: entryJobId(batchId, entry.entryId) })
        })
        return
      }
      case "Cancel": {
        const job = this.at(this.jobs, step.job)
        if (job !== undefined) this.spawn("cancel", job.projectId, cancelJob(job.projectId, job.jobId), 0)
        return
      }
      case "CancelBatch": {
        const batch = this.at(this.batches, step.batch)
        if (batch === undefined) return
        const cancel = batchCommands(batch.projectId, batch.batchId)({ _tag: "CancelBatch", batchId: batch.batchId, now: this.clock.now })
        this.spawn("cancel batch", batch.projectId, cancel, null)
        return
      }
      case "Retry": {
        const job = this.at(this.jobs, step.job)
        if (job !== undefined) this.spawn("client retry", job.projectId, retryJob(job.projectId, job.jobId, "client"), step.gateway)
        return
      }
      case "StopRecording": {
        // A stop of a job that is not recording is refused (job_not_live); the model's run ends when Finish says so,
        // as a stopped recording's run ends with its file.
        const job = this.at(this.jobs, step.job)
        if (job !== undefined) this.spawn("client stop", job.projectId, stopRecording(job.projectId, job.jobId), step.gateway)
        return
      }
      case "Quota": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        const quotas = {
          jobsPerDay: step.jobsPerDay === null ? ("unlimited" as const) : step.jobsPerDay,
          bytesPerMonth: step.bytesPerMonth === null ? ("unlimited" as const) : step.bytesPerMonth
        }
        this.spawn(
          "operator",
          projectId,
          projectCommands(projectId)({ _tag: "SetProjectQuota", projectId, quotas, now: this.clock.now }),
          null
        )
        return
      }
      case "Subscribe": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        const subscriptionId = this.newId("sub")
        const feed: FollowedFeed = { projectId, subscriptionId, url: `https://feeds.example/${subscriptionId}` }
        this.feeds.episodes.set(feed.url, 2)
        this.spawn("subscribe", projectId, subscribe(feed, step.backfill, this.clock.now), null, (exit) => {
          if (Exit.isSuccess(exit)) this.subscriptions.push(feed)
        })
        return
      }
      case "ChangeSubscription": {
        const feed = this.at(this.subscriptions, step.subscription)
        if (feed !== undefined) this.spawn(step.change, feed.projectId, changeSubscription(feed, step.change, this.clock.now), null)
        return
      }
      case "SubscriptionRound": {
        const feed = this.at(this.subscriptions, step.subscription)
        if (feed !== undefined) this.spawn("subscription checks", feed.projectId, subscriptionRound(feed), null)
        return
      }
      case "FeedChanges": {
        const feed = this.at(this.subscriptions, step.subscription)
        if (feed === undefined) return
        this.feeds.episodes.set(feed.url, (this.feeds.episodes.get(feed.url) ?? 0) + step.grows)
        if (step.failing) this.feeds.failing.add(feed.url)
        else this.feeds.failing.delete(feed.url)
        return
      }
      case "Take": {
        const message = this.at(this.queue.available(this.clock.now), step.message)
        if (message !== undefined) this.take(message.seq, step.outcome)
        return
      }
      case "Finish": {
        const run = this.at(
          this.liveRuns().filter((r) => r.finish !== null),
          step.run
        )
        const finish = run?.finish
        if (run === undefined || finish === null || finish === undefined) return
        run.finish = null
        finish()
        this.processes.advanceClock(0)
        return
      }
      case "Stall": {
        const run = this.at(this.liveRuns(), step.run)
        if (run === undefined) return
        this.disturbed = true
        run.stalled = true
        return
      }
      case "GoLive": {
        const run = this.at(
          this.liveRuns().filter((r) => r.attempt !== null),
          step.run
        )
        if (run === undefined || run.attempt === null) return
        const { projectId, jobId } = run.work
        const start = jobCommands(
          projectId,
          jobId
        )({
          _tag: "StartRecording",
          jobId,
          attempt: run.attempt,
          maxDurationSeconds: 600,
          now: this.clock.now
        })
        this.spawn(`recording ${run.id}`, projectId, start, null)
        return
      }
      case "KeepRecording": {
        // A run whose job records on its attempt keeps one more part (its recording's last report is the job's to say).
        const run = this.at(this.recordingRuns(), step.run)
        if (run === undefined || run.attempt === null) return
        const { projectId, jobId } = run.work
        run.kept += 1
        const keep = jobCommands(
          projectId,
          jobId
        )({
          _tag: "KeepRecording",
          jobId,
          attempt: run.attempt,
          chunks: run.kept,
          bytes: run.kept * 100_000,
          seconds: run.kept * 4,
          now: this.clock.now
        })
        this.spawn(`keep ${run.id}`, projectId, keep, null)
        return
      }
      case "LoseRecordingWorker": {
        // kill -9 of a recording run's worker (after keeping parts or before): its run never writes again; the message
        // is redelivered after the ack wait.
        const run = this.at(this.recordingRuns(), step.run)
        if (run === undefined) return
        this.disturbed = true
        this.processes.crash(run.process.pid)
        return
      }
      case "Write":
      case "FailWrite": {
        const gate = this.at(this.processes.pendingGates(), step.gate)
        if (gate === undefined) return
        if (step._tag === "FailWrite") this.disturbed = true
        this.write(gate.id, step._tag === "Write" ? "write" : "fail")
        return
      }
      case "Crash": {
        const process = this.at(this.processes.crashable(), step.process)
        if (process === undefined) return
        this.disturbed = true
        this.processes.crash(process.pid)
        return
      }
      case "RetryRound": {
        const job = this.at(this.allJobs(), step.job)
        if (job === undefined) return
        const round = Effect.flatMap(makeRetryRound(RETRIES), (run) => run(job, "Reconcile"))
        this.spawn("retries", job.projectId, round, null)
        return
      }
      case "FeedRound": {
        const batch = this.at(this.batches, step.batch)
        if (batch !== undefined) this.spawn("feeder", batch.projectId, feedBatch(batch.projectId, batch.batchId, "Reconcile"), null)
        return
      }
      case "Sweep": {
        const job = this.at(this.allJobs(), step.job)
        if (job === undefined) return
        const sweep = Effect.gen({ self: this }, function* () {
          const { state } = yield* (yield* JobStates).current(job.projectId, job.jobId)
          if (state === null) return
          const now = this.clock.now
          const actions = sweepReact(
            { _tag: "Job", job: state, progress: { artifactRemoved: true, documentRemoved: true }, graceMs: 0 },
            {
              _tag: "Sweep",
              now
            }
          )
          if (actions.some((a) => a._tag === "ExpireJob")) yield* expireJob(job.projectId, job.jobId)
        })
        this.spawn("sweeper", job.projectId, sweep, null)
        return
      }
      case "DeliveryRound": {
        const job = this.at(this.allJobs(), step.job)
        if (job === undefined) return
        this.destination.mode = step.mode
        this.spawn("deliveries", job.projectId, deliverJob(job.projectId, job.jobId, { retryDelaysMs: DELIVERY_RETRY_DELAYS_MS }), null)
        return
      }
      case "RetentionRound": {
        const projectId = PROJECTS[step.project % PROJECTS.length]!
        this.destination.mode = step.mode
        const jobIds = this.jobs.filter((job) => job.projectId === projectId && !this.gone.has(job.jobId)).map((job) => job.jobId)
        const round = subscriptionCommands(
          projectId,
          RETAINED_SUBSCRIPTION
        )({
          _tag: "CreateSubscription",
          subscriptionId: RETAINED_SUBSCRIPTION,
          projectId,
          url: "https://feeds.example/retained",
          platform: "generic",
          format: parseFormatId("video_best"),
          options: { delivery: { destinationId: MODEL_DESTINATION, pathTemplate: "{uploader}/{title} [{id}].{ext}", sidecars: ["nfo"] } },
          checkEveryMs: 3_600_000,
          filters: {},
          backfill: 0,
          retention: { keepLast: 1 },
          // The model's checker follows only the feeds it made: this one is never checked, only retained.
          now: this.clock.now
        }).pipe(
          Effect.catchTag("SubscriptionAlreadyExists", () => Effect.void),
          Effect.andThen(retainSubscription(projectId, RETAINED_SUBSCRIPTION, jobIds))
        )
        this.spawn("retention", projectId, round, null)
        return
      }
      case "Project":
        this.project(step.events)
        return
      case "JobRecordsGone":
        this.forget(step.job)
        return
      case "Tick":
        this.tick(step.ms)
        return
    }
  }

  /** Moves the clock; every live run that is not stalled has heartbeated meanwhile. */
  tick(ms: number): void {
    this.processes.advanceClock(ms)
    for (const run of this.liveRuns()) if (!run.stalled) this.queue.working(run.seq, run.id, this.clock.now)
  }

  /** The job projection writes the read model's documents for the next `count` job events (in stream order). */
  project(count: number): void {
    const jobEvents = this.store.messages().filter((m) => m.stream === "MDS_JOBS")
    const target = Math.min(jobEvents.length, this.projected + count)
    const apply = Effect.gen({ self: this }, function* () {
      const readModel = yield* JobReadModel
      for (; this.projected < target; this.projected++) {
        const message = jobEvents[this.projected]!
        const event = yield* Schema.decodeUnknownEffect(JobEvent)(message.payload)
        const [, , projectId = "", jobId = ""] = message.subject.split(".")
        if (this.gone.has(jobId)) continue
        const before = Option.getOrNull(yield* readModel.get(projectId, jobId))
        const after = evolveJobView(before, event, message.seq)
        if (after !== null) yield* readModel.put(after)
      }
    })
    Effect.runSync(apply.pipe(Effect.provide(this.context)))
  }

  /**
   * An ended job, its delivery settled, passes its lifetime: its events leave the store and its document the read
   * model. What the invariants judge (every message ever stored) keeps them. The stream's age limit takes a job's
   * events only after its lifetime, when a slot its try held has expired with it (or was freed, by its releaser or the
   * reconcile, within that lifetime): a job whose slot is still live on the model's clock is not gone yet.
   */
  private forget(index: number): void {
    const job = this.at(this.allJobs(), index)
    if (job === undefined || this.gone.has(job.jobId)) return
    const subject = jobSubject(job.projectId, job.jobId)
    const state = this.jobStates().get(subject) ?? null
    if (state === null || !hasEnded(state) || isAwaitingDelivery(state)) return
    const admission = Effect.runSync(currentAdmission(job.projectId).pipe(Effect.provide(this.context)))
    if (liveSlots(admission.state, this.clock.now).some((slot) => slot.jobId === job.jobId)) return
    this.gone.add(job.jobId)
    for (const message of this.store.messages().filter((m) => m.subject === subject)) this.store.remove(message)
    const removeDocument = Effect.gen(function* () {
      yield* (yield* JobReadModel).remove(job.projectId, job.jobId)
    })
    Effect.runSync(removeDocument.pipe(Effect.provide(this.context)))
  }

  /** A worker takes a work message and runs it: the real start, a download the model ends, the real finish. */
  take(seq: number, outcome: RunOutcome): void {
    const id = this.nextId++
    const message = this.queue.take(seq, id, this.clock.now)
    if (message === undefined) return
    const work = decodeWork(message.payload)
    const run: Run = {
      id,
      process: { pid: 0, label: "", projectId: "" },
      seq,
      work,
      outcome,
      attempt: null,
      finish: null,
      stalled: false,
      kept: 0,
      ended: false
    }
    const download = Effect.callback<void>((resume) => {
      run.finish = () => resume(Effect.void)
    })
    const steps = Effect.gen({ self: this }, function* () {
      const started = yield* startRun(work, {
        workerId: `worker${id}`,
        workSeq: seq,
        deliveryCount: message.deliveries,
        maxAttempts: MAX_ATTEMPTS
      })
      if (started._tag !== "Started") return "ack" as const
      const attempt = started.job.attempt
      run.attempt = attempt
      // Extension: the job's recording was lost with its worker after keeping parts: this run joins them and completes
      // the job partial instead of downloading (DownloadJob's salvage).
      const lost = keptOfLostRecording(started.job)
      if (lost !== null) {
        const joined = {
          key: `jobs/${work.projectId}/${work.jobId}/${id}.mp4`,
          filename: "media.mp4",
          mimeType: "video/mp4",
          sizeBytes: lost.bytes,
          availableUntil: this.clock.now + JOB_LIFETIME_MS
        }
        const end = yield* completeRun(work, attempt, joined, work.platform, deliveryOf(work, joined.key), "worker_lost")
        return end === "superseded" ? ("abandon" as const) : ("ack" as const)
      }
      yield* download
      // What the real run's race sees when its download ends: a cancel, the job's end, or the download's outcome; a
      // run a later delivery took over leaves the message to that one.
      const { state } = yield* (yield* JobStates).current(work.projectId, work.jobId)
      const verdict = (end: RunEnd) => (end === "superseded" ? ("abandon" as const) : ("ack" as const))
      if (jobStatus(state) === "canceled") return verdict(yield* stopCanceledRun(work, attempt))
      if (state !== null && this.clock.now >= state.expiresAt) return verdict(yield* stopExpiredRun(work, attempt))
      switch (outcome._tag) {
        case "Complete": {
          const artifact = {
            key: `jobs/${work.projectId}/${work.jobId}/${id}.mp4`,
            filename: "media.mp4",
            mimeType: "video/mp4",
            sizeBytes: outcome.bytes,
            availableUntil: this.clock.now + JOB_LIFETIME_MS
          }
          return verdict(yield* completeRun(work, attempt, artifact, work.platform, deliveryOf(work, artifact.key)))
        }
        case "FailRetryable":
          return verdict(
            yield* failRun(work, attempt, { code: "download_failed", message: "the media server answered 503", retryable: true })
          )
        case "FailForGood":
          return verdict(yield* failRun(work, attempt, { code: "media_unavailable", message: "the media is private", retryable: false }))
        case "NotBegun": {
          const startsAt = outcome.startsInMs === null ? null : this.clock.now + outcome.startsInMs
          return verdict(yield* awaitStreamStart(work, attempt, startsAt))
        }
        case "Infrastructure":
          return "retry" as const
      }
    })
    this.runs.push(run)
    this.runOf.set(id, run)
    const process = this.spawn(`run ${id}`, work.projectId, steps, null, (exit) => {
      run.ended = true
      // A failed step (NATS refused a write) is an infrastructure failure: the message is handed back, as DownloadJob does.
      const verdict = Exit.isSuccess(exit) ? exit.value : "retry"
      if (verdict === "ack") this.queue.ack(seq)
      else if (verdict === "retry") this.queue.nak(seq, this.clock.now, NAK_DELAY_MS)
    })
    ;(run as { process: ProcessInfo }).process = process
  }

  /** Lets everything settle: every write happens, every message is run to completion, every reactor reconciles. */
  settle(): void {
    for (let round = 0; round < 100; round++) {
      const before = this.store.messages().length
      let moved = false
      for (let guard = 0; guard < 10_000; guard++) {
        const gate = this.processes.pendingGates()[0]
        if (gate === undefined) break
        this.write(gate.id, "write")
        moved = true
      }
      for (const run of this.liveRuns()) {
        if (run.finish !== null) {
          const finish = run.finish
          run.finish = null
          finish()
          moved = true
        }
      }
      for (const message of this.queue.available(this.clock.now)) {
        this.take(message.seq, { _tag: "Complete", bytes: 1_000_000 })
        moved = true
      }
      if (this.processes.pendingGates().length > 0) continue
      for (const [index] of this.allJobs().entries()) this.apply({ _tag: "RetryRound", job: index })
      // The live-wait rounds, once the next probe of a scheduled job is due (its message's redelivery): by then every
      // scheduled stream has begun.
      this.untilNextProbe()
      for (const [index] of this.allJobs().entries()) this.apply({ _tag: "LiveRound", job: index, probe: "live" })
      // The delivery reactor's reconcile: every stored job whose attempt is due (the destination as it last answered).
      for (const [index] of this.allJobs().entries()) this.apply({ _tag: "DeliveryRound", job: index, mode: this.destination.mode })
      for (const [index] of this.batches.entries()) this.apply({ _tag: "FeedRound", batch: index })
      for (const [index] of this.subscriptions.entries()) this.apply({ _tag: "SubscriptionRound", subscription: index })
      // The slot reconcile: slots of tries that ended without their release (a releaser died), orphans past grace.
      for (const projectId of PROJECTS) this.spawn("slot reconcile", projectId, releaseFinished(projectId), null)
      this.project(Number.MAX_SAFE_INTEGER)
      if (this.processes.pendingGates().length > 0) continue
      // A delivery waiting for its next attempt is not settled: the clock moves on to it.
      const deliveryWaits = [...this.jobStates().values()].some((state) => isAwaitingDelivery(state))
      if (!moved && this.store.messages().length === before && this.queue.unacknowledged().length === 0 && !deliveryWaits) return
      this.tick(ACK_WAIT_MS + 1_000)
    }
  }

  /** Extension: moves the clock to the soonest probe a scheduled job waits for, if that is still ahead. */
  private untilNextProbe(): void {
    const due = [...this.jobStates().values()].flatMap((state) =>
      state !== null && state.status === "scheduled" && state.schedule !== undefined ? [state.schedule.nextProbeAt] : []
    )
    const soonest = Math.min(...due)
    if (Number.isFinite(soonest) && soonest > this.clock.now) this.tick(soonest - this.clock.now)
  }

  /** Every job's state folded from its events (the one evolve), by subject. */
  jobStates(): Map<string, ReturnType<typeof evolveJobView>> {
    const states = new Map<string, ReturnType<typeof evolveJobView>>()
    for (const message of this.store.messages()) {
      if (message.stream !== "MDS_JOBS") continue
      const event = Schema.decodeUnknownSync(JobEvent)(message.payload)
      states.set(message.subject, evolveJobView(states.get(message.subject) ?? null, event, message.seq))
    }
    return states
  }

  /** The state a reader is given (read model document plus later events), for every job. */
  readerStates(): Map<string, ReturnType<typeof evolveJobView>> {
    const states = new Map<string, ReturnType<typeof evolveJobView>>()
    const read = Effect.gen({ self: this }, function* () {
      const jobs = yield* JobStates
      for (const { projectId, jobId } of this.allJobs()) {
        // A job past its lifetime has nothing to read (GET answers 404), so nothing to compare.
        if (this.gone.has(jobId)) continue
        states.set(`mds.job.${projectId}.${jobId}`, (yield* jobs.current(projectId, jobId)).state)
      }
    })
    Effect.runSync(read.pipe(Effect.provide(this.context)))
    return states
  }

  isEnded(subject: string): boolean {
    return hasEnded(this.jobStates().get(subject) ?? null)
  }
}

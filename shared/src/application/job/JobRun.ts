// The writes of one run of a job, as a worker makes them: its start (StartJob) and its end (completed, failed, stopped
// on a cancel or at the job's end), each with the slot release it owes. The worker adds what is its own around them
// (the cancel watch, the heartbeat, the files, metrics); the lifecycle model runs these same steps.
import { Clock, Effect } from "effect"
import type { SlotReleaseReason } from "../../domain/admission/AdmissionEvent.ts"
import type { DownloadMedia } from "../../domain/job/DownloadMedia.ts"
import type { JobArtifact, JobError } from "../../domain/job/JobEvent.ts"
import type { PartialReason } from "../../domain/job/JobRecording.ts"
import { isRetryableFailure } from "../../domain/job/JobFailures.ts"
import { earlierTryRelease, slotReleaseBytes } from "../../domain/job/JobSlot.ts"
import type { DeliveredSidecar } from "../../domain/job/JobDelivery.ts"
import { isAwaitingDelivery, jobStatus } from "../../domain/job/JobState.ts"
import type { JobView } from "../../domain/job/JobView.ts"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { LiveWait } from "../../config/LiveWait.ts"
import { releaseSlot } from "../admission/AdmissionCommands.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

/** The worker's side of a run: who runs it, which message (its stream sequence, and deliveries), how many runs a job may have. */
export interface RunSettings {
  readonly workerId: string
  readonly workSeq: number
  readonly deliveryCount: number
  readonly maxAttempts: number
}

/** How a start went: the run goes on with the job as started, or there is nothing to run. */
export type RunStart =
  | { readonly _tag: "Started"; readonly job: JobView }
  /** The job's every allowed run died without a verdict: it is failed (attempts_exhausted) and its slot freed. */
  | { readonly _tag: "Exhausted" }
  /** The job already ended (or expired just now): its slot, if still held, was freed. */
  | { readonly _tag: "Ended"; readonly status: SlotReleaseReason }
  /**
   * The message is not the job's current run's: it is of an earlier try (whose slot, if still held, was freed), or
   * another message runs this try already (a hand-off sent again). Nothing runs.
   */
  | { readonly _tag: "NotCurrent"; readonly reason: "other_try" | "running" }
  /** No such job (never queued, or trimmed): nothing to do. */
  | { readonly _tag: "Unknown" }

/** How a run's end went: recorded; not recorded because the job had ended (its slot freed); or superseded. */
export type RunEnd = "recorded" | "ended" | "superseded"

const isEnded = (status: string): status is SlotReleaseReason =>
  status === "completed" || status === "failed" || status === "expired" || status === "canceled"

/** The try a work message is for. */
const tryOf = (work: DownloadMedia) => work.retry ?? 0

/**
 * Frees the slot of the message's try; a completed job's release also counts its file's bytes toward the month's
 * quota, on the slot of the claim the try was admitted with (`claim`, from the job's state).
 */
const releaseRunSlot = (work: DownloadMedia, reason: SlotReleaseReason, bytes = 0, claim?: string) =>
  releaseSlot(work.projectId, work.jobId, reason, bytes, { retry: tryOf(work), claim }).pipe(Effect.asVoid)

/**
 * The job's state when it is still this run's: null when a later attempt took the run over (the message was
 * redelivered while this run went on unheard): such a run writes nothing and frees nothing, its successor does.
 */
const ownState = Effect.fn("JobRun.ownState")(function* (work: DownloadMedia, attempt: number) {
  const { state } = yield* (yield* JobStates).current(work.projectId, work.jobId)
  return state !== null && state.attempt !== attempt ? null : state
})

/**
 * Records the job as failed (unless it had already ended) and frees its slot. `attempt` is the failing run's (null for
 * a job failed before any run of this delivery started).
 */
export const failRun = Effect.fn("JobRun.fail")(function* (work: DownloadMedia, attempt: number | null, error: JobError) {
  const failed = yield* jobCommands(
    work.projectId,
    work.jobId
  )({ _tag: "FailJob", jobId: work.jobId, error, now: yield* Clock.currentTimeMillis, ...(attempt === null ? {} : { attempt }) }).pipe(
    Effect.map((handled): RunEnd => (handled.events.length > 0 ? "recorded" : "ended")),
    Effect.catchTags({
      InvalidJobTransition: () => Effect.succeed<RunEnd>("ended"),
      RunNotCurrent: () => Effect.succeed<RunEnd>("superseded")
    })
  )
  if (failed !== "superseded") yield* releaseRunSlot(work, "failed")
  return failed
})

/**
 * Extension: the run found the job's stream or premiere not begun (yt-dlp says it is upcoming). A job that never waited
 * waits now, as a scheduled one (JobAwaitingStart), and the try that ran frees its slot as a claim made in vain (its
 * day's job is counted again when the stream's start takes a slot); one that waited already fails live_not_started.
 * "recorded" either way; "ended" when the job had ended meanwhile (its slot freed); "superseded" as for a failure.
 */
export const awaitStreamStart = Effect.fn("JobRun.awaitStart")(function* (work: DownloadMedia, attempt: number, startsAt: number | null) {
  const live = yield* LiveWait
  const { jobMs } = yield* Lifetimes
  const awaited = yield* jobCommands(
    work.projectId,
    work.jobId
  )({ _tag: "AwaitStart", jobId: work.jobId, attempt, startsAt, now: yield* Clock.currentTimeMillis, lifetimeMs: jobMs, live }).pipe(
    // What was decided, not the state after it (which a duplicate append reads again, and may have moved on).
    Effect.map((handled) =>
      handled.events.length === 0
        ? ("ended" as const)
        : handled.events.some((event) => event._tag === "JobAwaitingStart")
          ? ("waiting" as const)
          : ("failed" as const)
    ),
    Effect.catchTags({
      InvalidJobTransition: () => Effect.succeed("ended" as const),
      RunNotCurrent: () => Effect.succeed("superseded" as const)
    })
  )
  if (awaited === "superseded") return "superseded" satisfies RunEnd
  yield* releaseRunSlot(work, awaited === "waiting" ? "unused" : "failed")
  return awaited === "ended" ? ("ended" satisfies RunEnd) : ("recorded" satisfies RunEnd)
})

/**
 * Records the stored file as the job's; `handledBy` is the platform the download counts for. "ended" when the job
 * ended meanwhile (expired or canceled: nobody can fetch the file, so the caller discards it), its slot freed;
 * "superseded" when a later attempt took the run over (the caller discards the file too, and frees nothing).
 */
export const completeRun = Effect.fn("JobRun.complete")(function* (
  work: DownloadMedia,
  attempt: number,
  artifact: JobArtifact,
  handledBy: string,
  /** Extension, for a job with a destination: where its file and sidecars go (the job then waits for its delivery). */
  delivery?: { readonly path: string; readonly sidecars: ReadonlyArray<DeliveredSidecar> },
  /** Extension: the file holds less than asked (a lost recording's kept parts joined). */
  partial?: PartialReason
) {
  const completed = yield* jobCommands(
    work.projectId,
    work.jobId
  )({
    _tag: "CompleteJob",
    jobId: work.jobId,
    artifact,
    attempt,
    now: yield* Clock.currentTimeMillis,
    ...(handledBy === work.platform ? {} : { platform: handledBy }),
    ...(delivery === undefined ? {} : { delivery }),
    ...(partial === undefined ? {} : { partial })
  }).pipe(
    // Past its lifetime the job expires instead of completing (the decider's choice): that run's file is not kept. A
    // job with a destination is stored: its slot stays held until the delivery ends (DeliverJob frees it).
    Effect.map((handled) =>
      jobStatus(handled.state) === "completed"
        ? { claim: handled.state?.claim }
        : isAwaitingDelivery(handled.state)
          ? ("stored" as const)
          : jobStatus(handled.state)
    ),
    Effect.catchTags({
      InvalidJobTransition: (refused) => Effect.succeed(refused.status),
      RunNotCurrent: () => Effect.succeed("superseded" as const)
    })
  )
  if (completed === "superseded") return "superseded" satisfies RunEnd
  if (completed === "stored") return "recorded" satisfies RunEnd
  if (typeof completed === "string") {
    yield* releaseRunSlot(work, isEnded(completed) ? completed : "expired")
    return "ended" satisfies RunEnd
  }
  yield* releaseRunSlot(work, "completed", artifact.sizeBytes, completed.claim)
  return "recorded" satisfies RunEnd
})

/** A client canceled the job and this run stopped: its slot is freed (the worker removes what the run stored). */
export const stopCanceledRun = Effect.fn("JobRun.stopCanceled")(function* (work: DownloadMedia, attempt: number) {
  if ((yield* ownState(work, attempt)) === null) return "superseded" satisfies RunEnd
  yield* releaseRunSlot(work, "canceled")
  return "recorded" satisfies RunEnd
})

/** The job's lifetime ended during this run, which stopped: the job is expired and its slot freed. */
export const stopExpiredRun = Effect.fn("JobRun.stopExpired")(function* (work: DownloadMedia, attempt: number) {
  if ((yield* ownState(work, attempt)) === null) return "superseded" satisfies RunEnd
  yield* jobCommands(work.projectId, work.jobId)({ _tag: "ExpireJob", jobId: work.jobId, now: yield* Clock.currentTimeMillis })
  yield* releaseRunSlot(work, "expired")
  return "recorded" satisfies RunEnd
})

/**
 * Starts a delivered job: gives up on a job whose every allowed run died (its worker was killed, or lost NATS), records
 * StartJob for the message's try (fenced: a message of another try, or a second message of a try another one runs,
 * starts nothing), and frees the slot of a job that already ended (a run that recorded the end and then lost NATS
 * before freeing it is redelivered to do exactly that) or expired before it started.
 */
export const startRun = Effect.fn("JobRun.start")(function* (work: DownloadMedia, settings: RunSettings) {
  const jobs = yield* JobStates
  // Deliveries also count the times pacing handed the job back; only past the limit are the started runs counted:
  // the attempt the job's state holds less the runs before its latest retry (a retry is a new work message).
  if (settings.deliveryCount > settings.maxAttempts) {
    const { state } = yield* jobs.current(work.projectId, work.jobId)
    const startedRuns = (state?.attempt ?? 0) - (state?.retry?.afterAttempt ?? 0)
    if (startedRuns >= settings.maxAttempts) {
      yield* failRun(work, null, {
        code: "attempts_exhausted",
        message: `The job was started ${settings.maxAttempts} times and never finished (its worker stopped each time); it is not retried again.`,
        retryable: isRetryableFailure("attempts_exhausted")
      })
      return { _tag: "Exhausted" } satisfies RunStart
    }
  }
  const started = yield* jobCommands(
    work.projectId,
    work.jobId
  )({
    _tag: "StartJob",
    jobId: work.jobId,
    workerId: settings.workerId,
    retry: tryOf(work),
    work: settings.workSeq,
    now: yield* Clock.currentTimeMillis
  }).pipe(
    Effect.map((handled) => ({ _tag: "Appended" as const, state: handled.state })),
    Effect.catchTags({
      InvalidJobTransition: (refused) => Effect.succeed(refused.status),
      RunNotCurrent: (refused) => Effect.succeed(refused)
    })
  )
  if (typeof started === "string") {
    if (!isEnded(started)) return { _tag: "Unknown" } satisfies RunStart
    const { state } = yield* jobs.current(work.projectId, work.jobId)
    yield* releaseRunSlot(work, started, started === "completed" ? slotReleaseBytes(state) : 0, state?.claim)
    return { _tag: "Ended", status: started } satisfies RunStart
  }
  if (started._tag === "RunNotCurrent") {
    // An earlier try ended (failed, or waiting for its stream's start): its slot is freed if its releaser died.
    if (started.reason === "other_try") {
      const { state } = yield* jobs.current(work.projectId, work.jobId)
      yield* releaseRunSlot(work, earlierTryRelease(state, tryOf(work)))
    }
    return { _tag: "NotCurrent", reason: started.reason === "other_try" ? "other_try" : "running" } satisfies RunStart
  }
  // The start ended the job instead (past its lifetime: expired; a recording whose run died: failed): its slot is freed.
  const startedStatus = jobStatus(started.state)
  if (startedStatus === "expired" || startedStatus === "failed") {
    yield* releaseRunSlot(work, startedStatus)
    return { _tag: "Ended", status: startedStatus } satisfies RunStart
  }
  // A StartJob that appended leaves a queued job's document; null only for a job never queued, refused above.
  if (started.state === null) return { _tag: "Unknown" } satisfies RunStart
  return { _tag: "Started", job: started.state } satisfies RunStart
})

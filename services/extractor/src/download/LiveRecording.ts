// Extension: live recording. A run that finds its media live (yt-dlp's is_live) records that on the job, reports the
// seconds and bytes recorded every few seconds, ends yt-dlp (SIGINT: it keeps what it has) when a client stops the
// recording, max_duration is reached or its bytes reach the job's byte cap, and records why the recording ended before the job completes with its file.
import { readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import { Clock, Context, Deferred, Effect, Layer, Schedule, type Scope } from "effect"
import { currentAdmission } from "@mds/shared/application/admission/AdmissionCommands"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { isRecording, type RecordingEnd } from "@mds/shared/domain/job/JobRecording"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import { byteCapOf } from "./JobLimits.ts"
import { type KeptParts, RECORDING_KEEP_MS, RecordingParts } from "./RecordingParts.ts"

/** How often a recording's seconds and bytes are recorded on the job (SSE and webhooks show each). */
export const RECORDING_REPORT_MS = 2_000

/** How often a recording's bytes are measured against the job's byte cap. */
const SIZE_CHECK_MS = 1_000

export interface LiveRecording {
  /** Called from the run's output once yt-dlp announced a live stream; later calls change nothing. */
  readonly onLive: () => void
  /** Whether the run records a live stream (its start is recorded on the job). */
  readonly recording: () => boolean
  /** Completes when yt-dlp is to end the recording: a client stopped it, max_duration was reached, or the byte cap. */
  readonly stopWhen: Effect.Effect<void>
  /** Fails when the project records LIVE_RECORDINGS_PER_PROJECT live streams already (checked once the run is live). */
  readonly refused: Effect.Effect<never, DownloadFailed>
  /** After yt-dlp ended: records the recording's last figures and why it ended (nothing for a media that is not live). */
  readonly finish: Effect.Effect<void>
}

/** Bytes of the files in the run's directory: what the recording wrote so far (yt-dlp's ffmpeg writes one file). */
const bytesIn = (dir: string) =>
  Effect.promise(async () => {
    const names = await readdir(dir).catch(() => [] as Array<string>)
    const sizes = await Promise.all(
      names.map((name) =>
        stat(join(dir, name)).then(
          (s) => (s.isFile() ? s.size : 0),
          () => 0
        )
      )
    )
    return sizes.reduce((sum, size) => sum + size, 0)
  })

/** Completes once the run's directory holds `cap` bytes or more. */
const reachesBytes = (dir: string, cap: number) =>
  bytesIn(dir).pipe(Effect.repeat({ schedule: Schedule.spaced(SIZE_CHECK_MS), until: (bytes) => bytes >= cap }), Effect.asVoid)

export class LiveRecordings extends Context.Service<LiveRecordings>()("mds/extractor/LiveRecordings", {
  make: Effect.gen(function* () {
    const store = yield* EventStore
    const jobs = yield* JobStates
    const config = yield* ExtractorConfig
    const parts = yield* RecordingParts

    /**
     * The project's other recordings that started before this one (by start, then job id): a recording's start is
     * recorded first and the others counted after, so of two that go live at once the later one, and only it, gives way.
     */
    const earlierRecordings = (command: DownloadMedia, startedAt: number) =>
      Effect.gen(function* () {
        const { state } = yield* currentAdmission(command.projectId)
        const others = liveSlots(state, startedAt).filter((slot) => slot.jobId !== command.jobId)
        let earlier = 0
        for (const slot of others) {
          const { state: other } = yield* jobs.current(command.projectId, slot.jobId)
          const recording = other?.recording
          if (!isRecording(other) || recording === undefined) continue
          if (recording.startedAt < startedAt || (recording.startedAt === startedAt && slot.jobId < command.jobId)) earlier++
        }
        return earlier
      }).pipe(Effect.provideService(EventStore, store))

    /**
     * Watches the run (for the scope's length); `stopRequested` is the job's stop (JobCancelWatch); `kept` counts the
     * parts it kept in the artifact store (RecordingParts), for the run's end to remove.
     */
    const track = (
      command: DownloadMedia,
      attempt: number,
      workDir: string,
      stopRequested: Effect.Effect<void>,
      kept: KeptParts
    ): Effect.Effect<LiveRecording, never, Scope.Scope> =>
      Effect.gen(function* () {
        const live = yield* Deferred.make<void>()
        const stopNow = yield* Deferred.make<void>()
        const refused = yield* Deferred.make<never, DownloadFailed>()
        const ceiling = config.liveMaxDurationSeconds
        const maxSeconds = Math.min(command.options?.maxDurationSeconds ?? ceiling, ceiling)
        const byteCap = byteCapOf({
          maxDurationSeconds: 0,
          maxFileBytes: config.maxFileBytes,
          quotaBytesLeft: command.quotaBytesLeft ?? null
        })
        const commands = jobCommands(command.projectId, command.jobId)
        let startedAt: number | null = null
        let ended: RecordingEnd | null = null

        const report = (end?: RecordingEnd) =>
          Effect.gen(function* () {
            if (startedAt === null) return
            const now = yield* Clock.currentTimeMillis
            const bytes = yield* bytesIn(workDir)
            const seconds = Math.floor((now - startedAt) / 1000)
            yield* commands({
              _tag: "ReportRecording",
              jobId: command.jobId,
              attempt,
              seconds,
              bytes,
              ...(end === undefined ? {} : { ended: end }),
              now
            })
          }).pipe(
            Effect.provideService(EventStore, store),
            Effect.catchCause((cause) => Effect.logWarning("recording report failed", cause))
          )

        yield* Effect.gen(function* () {
          yield* Deferred.await(live)
          const now = yield* Clock.currentTimeMillis
          yield* commands({ _tag: "StartRecording", jobId: command.jobId, attempt, maxDurationSeconds: maxSeconds, now }).pipe(
            Effect.provideService(EventStore, store)
          )
          startedAt = now
          yield* Effect.logInfo("the media is live: recording it", { maxDurationSeconds: maxSeconds })
          const earlier = yield* earlierRecordings(command, now)
          if (earlier >= config.liveRecordingsPerProject) {
            const failure = jobFailure(
              "live_recordings_exceeded",
              `The project records ${earlier} live stream(s) already (LIVE_RECORDINGS_PER_PROJECT ${config.liveRecordingsPerProject}); retry once one ended.`
            )
            return yield* Deferred.fail(refused, failure)
          }
          yield* report().pipe(Effect.repeat(Schedule.spaced(RECORDING_REPORT_MS)), Effect.forkScoped)
          // Keeps what it recorded in the artifact store as it goes, and says so on the job: a run that dies leaves it
          // to the job's next run, which joins the parts (DownloadJob).
          const keep = Effect.gen(function* () {
            const keptOne = yield* parts.keepNext(command, workDir, `${workDir}.keep.ts`, kept)
            if (!keptOne || startedAt === null) return
            const now = yield* Clock.currentTimeMillis
            yield* commands({
              _tag: "KeepRecording",
              jobId: command.jobId,
              attempt,
              chunks: kept.chunks,
              bytes: kept.bytes,
              seconds: Math.floor((now - startedAt) / 1000),
              now
            }).pipe(Effect.provideService(EventStore, store))
          }).pipe(Effect.catchCause((cause) => Effect.logWarning("keeping a part of the recording failed", cause)))
          yield* keep.pipe(Effect.repeat(Schedule.spaced(RECORDING_KEEP_MS)), Effect.forkScoped)
          ended = yield* Effect.raceAllFirst([
            stopRequested.pipe(Effect.as<RecordingEnd>("stopped")),
            Effect.sleep(maxSeconds * 1000).pipe(Effect.as<RecordingEnd>("max_duration")),
            byteCap === null ? Effect.never : reachesBytes(workDir, byteCap).pipe(Effect.as<RecordingEnd>("size_limit"))
          ])
          yield* Effect.logInfo("ending the recording", { why: ended, byteCap })
          yield* Deferred.succeed(stopNow, undefined)
        }).pipe(
          Effect.catchCause((cause) => Effect.logWarning("recording its start on the job failed; the run goes on", cause)),
          Effect.forkScoped
        )

        return {
          onLive: () => {
            Deferred.doneUnsafe(live, Effect.void)
          },
          recording: () => startedAt !== null,
          stopWhen: Deferred.await(stopNow),
          refused: Deferred.await(refused),
          finish: Effect.suspend(() => report(ended ?? "stream_ended"))
        } satisfies LiveRecording
      })

    return { track }
  })
}) {
  static readonly layer = Layer.effect(LiveRecordings, LiveRecordings.make)
}

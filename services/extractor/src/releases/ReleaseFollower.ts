// Follows the fleet's yt-dlp choice: installs the chosen release beside the others, checks it, switches or keeps the old one.
import { Effect, Layer, Option, Schedule } from "effect"
import { type YtDlpReleaseChoice, YtDlpReleaseChosen, YtDlpWorkerEvent } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { recordWorkerReport } from "@mds/shared/application/release/ReleaseFacts"
import { WORKER_REPORT_INTERVAL_MS } from "@mds/shared/domain/release/YtDlpFleetStatus"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { YT_DLP_CHOICE_SUBJECT } from "@mds/shared/nats/Subjects"
import { publishExtractorCatalog } from "../catalog/CatalogPublisher.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { ActiveRelease } from "../ytdlp/ActiveRelease.ts"
import { ReleaseConfig } from "./ReleaseConfig.ts"
import { ReleaseInstaller } from "./ReleaseInstaller.ts"
import { initialFollowState, nextFollowStep } from "./ReleaseSchedule.ts"
import { ReleaseSelfCheck } from "./ReleaseSelfCheck.ts"

/**
 * The choice in force is the operator's last `extractors use ...`, else YT_DLP_AUTO_UPDATE's channel. A new choice is
 * applied once; a channel is looked up again every YT_DLP_AUTO_UPDATE_INTERVAL_SECONDS, so a new stable (or nightly)
 * release reaches the fleet without anyone choosing it. A failed install or check is reported and not retried until
 * the choice changes or the next look-up.
 */
export const ReleaseFollower = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const active = yield* ActiveRelease
    const installer = yield* ReleaseInstaller
    const selfCheck = yield* ReleaseSelfCheck
    const config = yield* ReleaseConfig
    const { workerId } = yield* ExtractorConfig
    const ytdlp = yield* YtDlp

    const report = (event: YtDlpWorkerEvent) =>
      recordWorkerReport(workerId)(event).pipe(
        Effect.provideService(EventStore, store),
        Effect.catchCause((cause) => Effect.logWarning("release report not recorded", cause))
      )

    const apply = Effect.fn("ReleaseFollower.apply")(function* (choice: YtDlpReleaseChoice) {
      const current = active.current()
      if (choice === current.version) return
      const installed = yield* installer.install(choice).pipe(Effect.result)
      if (installed._tag === "Failure") {
        yield* Effect.logWarning("yt-dlp release not installed; keeping the current one", {
          choice,
          kept: current.version,
          reason: installed.failure.message
        })
        return yield* report({
          _tag: "YtDlpReleaseRejected",
          v: 1,
          workerId,
          choice,
          version: null,
          kept: current.version,
          reason: installed.failure.message,
          at: Date.now()
        })
      }
      const release = installed.success
      if (release.version === current.version) return
      const checked = yield* selfCheck.check(release).pipe(Effect.result)
      if (checked._tag === "Failure") {
        yield* Effect.logWarning("yt-dlp release failed its check; rolled back", {
          choice,
          version: release.version,
          kept: current.version,
          reason: checked.failure.message
        })
        return yield* report({
          _tag: "YtDlpReleaseRejected",
          v: 1,
          workerId,
          choice,
          version: release.version,
          kept: current.version,
          reason: checked.failure.message,
          at: Date.now()
        })
      }
      yield* active.switchTo(release)
      yield* Effect.logInfo("yt-dlp release switched; running jobs finish on the previous one", {
        choice,
        version: release.version,
        previous: current.version
      })
      yield* report({
        _tag: "YtDlpReleaseActivated",
        v: 1,
        workerId,
        choice,
        version: release.version,
        previous: current.version,
        at: Date.now()
      })
      yield* publishExtractorCatalog.pipe(
        Effect.provideService(YtDlp, ytdlp),
        Effect.provideService(EventStore, store),
        Effect.catchCause((cause) => Effect.logWarning("extractor catalog not published", cause))
      )
    })

    const chosen = store
      .readLast(YtDlpReleaseChosen, YT_DLP_CHOICE_SUBJECT)
      .pipe(Effect.map(Option.map((stored) => ({ seq: stored.seq, choice: stored.event.choice }))))

    let state = initialFollowState
    const follow = Effect.gen(function* () {
      const last = yield* chosen
      const step = nextFollowStep(state, Option.getOrNull(last), config.autoUpdate, config.autoUpdateIntervalMs, Date.now())
      state = step.state
      if (step.apply !== null) yield* apply(step.apply)
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("following the yt-dlp choice failed; trying again", cause)))

    yield* report({ _tag: "YtDlpReleaseRunning", v: 1, workerId, version: active.builtIn.version, at: Date.now() })
    // Repeated, so status and health can leave out extractors that stopped (see WORKER_SILENT_AFTER_MS).
    yield* Effect.suspend(() =>
      report({ _tag: "YtDlpReleaseRunning", v: 1, workerId, version: active.current().version, at: Date.now() })
    ).pipe(Effect.delay(WORKER_REPORT_INTERVAL_MS), Effect.forever, Effect.forkScoped)
    yield* follow.pipe(Effect.repeat(Schedule.spaced(config.pollMs)), Effect.forkScoped)
  })
)

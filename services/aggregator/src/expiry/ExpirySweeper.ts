// Expires jobs past their lifetime (slot freed), then deletes their read-model documents, files and thumbnails.
import { recordingPartKeys } from "@mds/shared/artifacts/RecordingPartKey"
import { Clock, Config, Effect, Layer, Option, Schema } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { expireJob } from "@mds/shared/application/job/ExpireJob"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { followJobEvents } from "@mds/shared/application/job/JobEventFollower"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { MEDIA_STREAM, mediaSubject } from "@mds/shared/nats/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { Followers } from "@mds/shared/nats/Followers"
import { type FollowedMessage, followDecoded } from "@mds/shared/nats/StreamFollower"
import { Done, runReactor } from "../reactors/Reactor.ts"
import { isSweptForGood, nothingSwept, react, type SweepAction, type SweepState } from "./SweepActions.ts"

const decodeMediaEvent = Schema.decodeUnknownOption(Schema.fromJsonString(MediaEvent))

/** Thumbnails the extractor generated are artifacts too ("thumbnails/<mediaId>.jpg"), living as long as the media. */
const thumbnailKey = (mediaId: string) => `thumbnails/${mediaId}.jpg`

export const ExpirySweeperConfig = Config.all({
  intervalMs: secondsAsMs("EXPIRY_SWEEP_INTERVAL_SECONDS", 30),
  graceMs: secondsAsMs("EXPIRY_DOCUMENT_GRACE_SECONDS", 60)
})

/**
 * A reactor (`reactors/Reactor.ts`) woken by its clock: what it must act on is a deadline (a job's lifetime, a link's,
 * a media's), which no event announces when it passes. Its state is what can still expire, followed in memory from
 * MDS_JOBS and MDS_MEDIA (the streams hold only jobs and media that can still matter; a restart replays them, the
 * reconcile at start), and every tick is a reconcile over it: the pure `react` (`SweepActions.ts`), then each action,
 * each idempotent (decider no-ops, message ids, deleting what is gone), so several sweepers do no harm.
 */
export const ExpirySweeper = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const readModel = yield* JobReadModel
    const artifacts = yield* ArtifactStore
    const { intervalMs, graceMs } = yield* ExpirySweeperConfig
    /** By job subject or thumbnail key: everything that may still have something to sweep. */
    const tracked = new Map<string, SweepState>()

    const onJobEvent = (event: JobEvent, { subject, seq }: FollowedMessage) => {
      const known = tracked.get(subject)
      const before = known?._tag === "Job" ? known : undefined
      const job = evolveJobView(before?.job ?? null, event, seq)
      if (job !== null) tracked.set(subject, { _tag: "Job", job, progress: before?.progress ?? nothingSwept, graceMs })
    }

    const onMediaEvent = (media: MediaEvent) => {
      const key = thumbnailKey(media.mediaId)
      if (media.thumbnail.includes(`/files/${key}`))
        tracked.set(key, { _tag: "Thumbnail", key, expiresAt: media.expiresAt, removed: false })
    }

    /** Records what was swept on the latest state (the followers may have moved it on meanwhile). */
    const swept = (id: string, action: SweepAction) => {
      const state = tracked.get(id)
      if (state === undefined) return
      if (state._tag === "Thumbnail") tracked.set(id, { ...state, removed: true })
      else if (action._tag === "RemoveArtifact") tracked.set(id, { ...state, progress: { ...state.progress, artifactRemoved: true } })
      else if (action._tag === "RemoveDocument") tracked.set(id, { ...state, progress: { ...state.progress, documentRemoved: true } })
    }

    const carryOut = (id: string, state: SweepState, action: SweepAction) =>
      Effect.gen(function* () {
        switch (action._tag) {
          case "ExpireJob": {
            if (state._tag !== "Job") return
            const { job } = state
            yield* expireJob(job.projectId, job.id)
            yield* Effect.logInfo("job expired", { jobId: job.id, projectId: job.projectId, status: job.status })
            return
          }
          case "RemoveArtifact":
            yield* artifacts.remove(action.key)
            swept(id, action)
            yield* Effect.logInfo("expired artifact removed", { jobId: state._tag === "Job" ? state.job.id : null, key: action.key })
            return
          case "RemoveDocument": {
            if (state._tag !== "Job") return
            const { job } = state
            const doc = yield* readModel.get(job.projectId, job.id)
            // A projection behind the stream would write the document again after we removed it: wait for it.
            if (Option.isSome(doc) && doc.value.lastSeq < job.lastSeq) return
            if (Option.isSome(doc)) yield* readModel.remove(job.projectId, job.id)
            // Extension: a live recording's kept parts that no run removed (the job canceled or failed while its
            // recording's worker was lost) go with the job.
            for (const key of recordingPartKeys(job.projectId, job.id, job.recording?.kept?.chunks ?? 0)) {
              yield* artifacts.remove(key).pipe(Effect.ignore)
            }
            swept(id, action)
            return
          }
          case "RemoveThumbnail":
            yield* artifacts.remove(action.key)
            swept(id, action)
            return
        }
      }).pipe(Effect.provideService(EventStore, store))

    const round = (id: string) =>
      Effect.gen(function* () {
        const state = tracked.get(id)
        if (state === undefined) return Done
        const now = yield* Clock.currentTimeMillis
        for (const action of react(state, { _tag: "Sweep", now })) {
          yield* carryOut(id, state, action).pipe(
            Effect.catchCause((cause) => Effect.logWarning("sweep action failed; retried next time", { id, action: action._tag }, cause))
          )
        }
        const after = tracked.get(id)
        if (after !== undefined && isSweptForGood(after)) tracked.delete(id)
        return Done
      })

    // Each follower notices when its consumer stops delivering (its server gone) and resumes on a live one.
    const followers = [
      yield* followJobEvents("expiry_jobs", onJobEvent),
      yield* followDecoded({
        name: "expiry_media",
        stream: MEDIA_STREAM.name,
        filterSubject: mediaSubject.all,
        from: "all",
        decode: decodeMediaEvent,
        onEvent: onMediaEvent
      })
    ]
    const registry = yield* Followers
    for (const follower of followers) registry.register(follower)
    // A sweep over states that stopped following would act late or on old states: wait until both deliver again.
    const candidates = Effect.suspend(() => {
      const recovering = followers.filter((f) => f.state() !== "following").map((f) => f.name)
      if (recovering.length === 0) return Effect.succeed([...tracked.keys()])
      return Effect.as(Effect.logWarning("expiry sweep postponed: followers not delivering", { recovering }), [])
    })
    yield* runReactor({
      name: "expiry sweeper",
      keyOf: (id: string) => id,
      round,
      wakeSources: [],
      reconcile: { everyMs: intervalMs, firstAfterMs: intervalMs, candidates, trigger: "Sweep" }
    })
    yield* Effect.logInfo("expiry sweeper running", { intervalMs, graceMs })
  })
)

// Expires jobs past their lifetime (slot freed), then deletes their read-model documents, files and thumbnails.
import { Clock, Config, Effect, Layer, Option, Schedule, Schema } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { followJobEvents } from "@mds/shared/domain/job/JobEventFollower"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { MEDIA_STREAM } from "@mds/shared/eventstore/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { dueSweepActions, isFullySwept, nothingSwept, type SweepAction, type SweepProgress } from "./SweepActions.ts"
import { Followers } from "@mds/shared/nats/Followers"
import { type FollowedMessage, followDecoded } from "@mds/shared/nats/StreamFollower"

const decodeMediaEvent = Schema.decodeUnknownOption(Schema.fromJsonString(MediaEvent))

interface Tracked {
  view: JobView
  progress: SweepProgress
}

/** Thumbnails the extractor generated are artifacts too ("thumbnails/<mediaId>.jpg"), living as long as the media. */
const thumbnailKey = (mediaId: string) => `thumbnails/${mediaId}.jpg`

export const ExpirySweeperConfig = Config.all({
  intervalMs: secondsAsMs("EXPIRY_SWEEP_INTERVAL_SECONDS", 30),
  graceMs: secondsAsMs("EXPIRY_DOCUMENT_GRACE_SECONDS", 60)
})

/**
 * Follows MDS_JOBS and MDS_MEDIA in memory (the streams hold only jobs and media that can still matter) and
 * acts on each tick. Every action is idempotent (decider no-ops, message ids, deleting what is gone), so
 * several sweepers, or a sweeper replaying the streams after a restart, do no harm.
 */
export const ExpirySweeper = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const readModel = yield* JobReadModel
    const artifacts = yield* ArtifactStore
    const { intervalMs, graceMs } = yield* ExpirySweeperConfig
    const jobs = new Map<string, Tracked>()
    const thumbnails = new Map<string, number>()

    const onJobEvent = (event: JobEvent, { subject, seq }: FollowedMessage) => {
      const tracked = jobs.get(subject)
      const view = evolveJobView(tracked?.view ?? null, event, seq)
      if (view === null) return
      if (tracked === undefined) jobs.set(subject, { view, progress: nothingSwept })
      else tracked.view = view
    }

    const onMediaEvent = (media: MediaEvent) => {
      if (media.thumbnail.includes(`/files/${thumbnailKey(media.mediaId)}`)) thumbnails.set(media.mediaId, media.expiresAt)
    }

    const act = (tracked: Tracked, action: SweepAction, now: number) =>
      Effect.gen(function* () {
        const { view } = tracked
        switch (action._tag) {
          case "ExpireJob": {
            yield* jobCommands(view.projectId, view.id)({ _tag: "ExpireJob", jobId: view.id, now })
            // Normally a no-op: the slot stops counting at the same instant. It matters for a slot claimed later.
            yield* releaseSlot(view.projectId, view.id, "expired")
            yield* Effect.logInfo("job expired", { jobId: view.id, projectId: view.projectId, status: view.status })
            return
          }
          case "RemoveArtifact":
            yield* artifacts.remove(action.key)
            tracked.progress = { ...tracked.progress, artifactRemoved: true }
            yield* Effect.logInfo("expired artifact removed", { jobId: view.id, key: action.key })
            return
          case "RemoveDocument": {
            const doc = yield* readModel.get(view.projectId, view.id)
            // A projection behind the stream would write the document again after we removed it: wait for it.
            if (Option.isSome(doc) && doc.value.lastSeq < view.lastSeq) return
            if (Option.isSome(doc)) yield* readModel.remove(view.projectId, view.id)
            tracked.progress = { ...tracked.progress, documentRemoved: true }
            return
          }
        }
      }).pipe(Effect.provideService(EventStore, store))

    const sweep = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      for (const [subject, tracked] of [...jobs]) {
        for (const action of dueSweepActions(tracked.view, tracked.progress, now, graceMs)) {
          yield* act(tracked, action, now).pipe(
            Effect.catchCause((cause) =>
              Effect.logWarning("sweep action failed; retried next time", { subject, action: action._tag }, cause)
            )
          )
        }
        if (isFullySwept(tracked.view, tracked.progress)) jobs.delete(subject)
      }
      for (const [mediaId, expiresAt] of [...thumbnails]) {
        if (now < expiresAt) continue
        yield* artifacts.remove(thumbnailKey(mediaId)).pipe(
          Effect.tap(() => Effect.sync(() => thumbnails.delete(mediaId))),
          Effect.catchCause((cause) => Effect.logWarning("thumbnail removal failed; retried next time", { mediaId }, cause))
        )
      }
    })

    // Each follower notices when its consumer stops delivering (its server gone) and resumes on a live one.
    const followers = [
      yield* followJobEvents("expiry_jobs", onJobEvent),
      yield* followDecoded({
        name: "expiry_media",
        stream: MEDIA_STREAM.name,
        filterSubject: MEDIA_STREAM.subjects[0] ?? "mds.media.>",
        from: "all",
        decode: decodeMediaEvent,
        onEvent: onMediaEvent
      })
    ]
    const registry = yield* Followers
    for (const follower of followers) registry.register(follower)
    // A sweep over views that stopped following would act late or on old states: wait until both deliver again.
    const sweepWhenFollowing = Effect.suspend(() => {
      const recovering = followers.filter((f) => f.state() !== "following").map((f) => f.name)
      return recovering.length === 0 ? sweep : Effect.logWarning("expiry sweep postponed: followers not delivering", { recovering })
    })
    yield* sweepWhenFollowing.pipe(Effect.repeat(Schedule.spaced(intervalMs)), Effect.delay(intervalMs), Effect.forkScoped)
    yield* Effect.logInfo("expiry sweeper running", { intervalMs, graceMs })
  })
)

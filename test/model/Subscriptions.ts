// The lifecycle model's subscriptions: a feed for each subscription that the model grows (read by the real check step
// through its FeedResolver port), and the subscription's steps: a client's commands and the checks reactor's round
// (settle the entries in flight, run the due check: the real steps, under no lock, as when a lock lapsed).
import { Effect, Layer, Schema } from "effect"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { MediaEvent, type MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { react } from "@mds/shared/domain/subscription/SubscriptionChecks"
import type { SubscriptionCommand } from "@mds/shared/domain/subscription/SubscriptionDecider"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { settleEntries } from "../../services/aggregator/src/subscriptions/EntrySettlement.ts"
import { FeedResolver } from "../../services/aggregator/src/subscriptions/FeedResolver.ts"
import { runSubscriptionCheck } from "../../services/aggregator/src/subscriptions/SubscriptionCheck.ts"

/** A subscription a client made, and the feed it follows. */
export interface FollowedFeed {
  readonly projectId: string
  readonly subscriptionId: string
  readonly url: string
}

export type SubscriptionChange = "PauseSubscription" | "ResumeSubscription" | "RemoveSubscription" | "CheckNow"

/** The episodes each feed lists (newest first: n, n-1, ... 1), by URL; a feed answers 503 while failing. */
export class ModelFeeds {
  readonly episodes = new Map<string, number>()
  readonly failing = new Set<string>()

  /** The playlist a resolve of the feed gives now, as the extractor records it (each entry keyed by its guid). */
  playlistOf(url: string, now: number): MediaResolved {
    const count = this.episodes.get(url) ?? 0
    return Schema.decodeUnknownSync(MediaEvent)({
      _tag: "MediaResolved",
      v: 1,
      mediaId: `med_feed${now}`,
      url,
      webpageUrl: url,
      platform: "generic",
      type: "playlist",
      title: url,
      thumbnail: "",
      duration: 0,
      author: { name: "", username: "" },
      formats: [],
      resolvedAt: now,
      expiresAt: now + 3_600_000,
      entries: Array.from({ length: count }, (_, i) => count - i).map((n) => ({
        id: `ent_${n}`,
        url: `${url}/episode-${n}.mp4`,
        title: `Episode ${n}`,
        duration: 60,
        extractorKey: "Generic",
        extractorId: `${url}#${n}`
      }))
    }) as MediaResolved
  }

  /** The check's port over these feeds. */
  readonly layer = Layer.sync(FeedResolver, () =>
    FeedResolver.of({
      resolve: (subscription) =>
        Effect.map(
          Effect.clockWith((clock) => clock.currentTimeMillis),
          (now) =>
            this.failing.has(subscription.url)
              ? { code: "extraction_failed", message: "the feed answered 503" }
              : this.playlistOf(subscription.url, now)
        )
    })
  )
}

/** A client subscribes, as POST /v1/subscriptions records it once the URL resolved as a playlist. */
export const subscribe = (feed: FollowedFeed, backfill: number, now: number) =>
  subscriptionCommands(feed.projectId, feed.subscriptionId)(
    {
      _tag: "CreateSubscription",
      subscriptionId: feed.subscriptionId,
      projectId: feed.projectId,
      url: feed.url,
      platform: "generic",
      format: parseFormatId("video_best"),
      checkEveryMs: 3_600_000,
      filters: {},
      backfill,
      now
    },
    { isNew: true }
  )

/** A client pauses, resumes, removes or checks now; a refusal (paused, not found) is the client's answer. */
export const changeSubscription = (feed: FollowedFeed, change: SubscriptionChange, now: number) => {
  const command = { _tag: change, subscriptionId: feed.subscriptionId, now } as SubscriptionCommand
  return subscriptionCommands(
    feed.projectId,
    feed.subscriptionId
  )(command).pipe(
    Effect.asVoid,
    Effect.catchTags({
      SubscriptionNotFound: () => Effect.void,
      SubscriptionPausedNow: () => Effect.void
    })
  )
}

/** One round of the checks reactor for the subscription (SubscriptionChecker's round, the check run in it). */
export const subscriptionRound = (feed: FollowedFeed) =>
  Effect.gen(function* () {
    const { state } = yield* currentSubscription(feed.projectId, feed.subscriptionId)
    const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    for (const reaction of react(state, { _tag: "Reconcile", now })) {
      switch (reaction._tag) {
        case "StopChecking":
          return
        case "Settle":
          yield* settleEntries(feed.projectId, feed.subscriptionId)
          break
        case "RunCheck":
          yield* runSubscriptionCheck(feed.projectId, feed.subscriptionId, reaction.dueAt)
          break
      }
    }
  })

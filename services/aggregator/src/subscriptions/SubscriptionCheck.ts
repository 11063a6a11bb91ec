// Extension: one check of a subscription for one due time: resolve the playlist and record the plan, claim in the
// archive, batch, record; a rerun of the check follows its recorded plan.
import { Clock, Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { quotaStandingsOf } from "@mds/shared/application/admission/QuotaCheck"
import { archiveClaimOf, recordArchiveEntry } from "@mds/shared/application/archive/ArchiveCommands"
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import { currentMedia } from "@mds/shared/application/media/MediaFacts"
import { subscriptionBatchOptions } from "@mds/shared/domain/subscription/SubscriptionLibrary"
import { recordOfPlan } from "@mds/shared/domain/subscription/CheckRecord"
import { foundEntriesOf } from "@mds/shared/domain/subscription/FoundEntries"
import { admissionOfQuota, planCheck } from "@mds/shared/domain/subscription/SubscriptionCheckPlan"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import type { QueuedEntry } from "@mds/shared/domain/subscription/SubscriptionEvent"
import type { OpenPlan, Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { formerArchiveKeyOf } from "@mds/shared/domain/subscription/ArchiveKey"
import { derivedId } from "@mds/shared/ids/Ids"
import { FeedResolver } from "./FeedResolver.ts"

/** A check's claims in the project's archive: every run of the same check (a restart, a second run) owns them again. */
export const checkClaimId = (subscriptionId: string, dueAt: number) => `${subscriptionId}@${dueAt}`

/** The batch of the entries one check queued: the same id on every run of the check, so it is created once. */
export const checkBatchId = (subscriptionId: string, dueAt: number) => derivedId("bat", `subscription:${subscriptionId}@${dueAt}`)

const asQueued = ({ archiveKey, entryId, url, title }: QueuedEntry): QueuedEntry => ({ archiveKey, entryId, url, title })

/**
 * Claims the entry in the project's archive; true when this check owns it (and so queues it). An entry another claim
 * recorded under its former key (before entries carried their extractor's id) is that claim's.
 */
const claimEntry = (projectId: string, subscriptionId: string, claimId: string, platform: string, entry: QueuedEntry, now: number) =>
  Effect.gen(function* () {
    const former = formerArchiveKeyOf(platform, entry.entryId)
    if (former !== entry.archiveKey) {
      const claim = yield* archiveClaimOf(projectId, former)
      if (claim !== null && claim !== claimId) return false
    }
    return yield* recordArchiveEntry({ projectId, archiveKey: entry.archiveKey, subscriptionId, claimId, now })
  })

export type CheckOutcome = "not_due" | "checked" | "failed"

/**
 * The check's plan: the one recorded by an earlier run of the check, or one made now from the feed and the project's
 * quota and recorded before anything is claimed (conditional on the state read: a pause or a removal recorded since
 * refuses it). Null when there is none to follow: the check failed, or it is no longer due.
 */
const planOf = Effect.fn("SubscriptionCheck.plan")(function* (state: Subscription, dueAt: number) {
  if (state.plan !== null) return state.plan.dueAt === dueAt ? state.plan : null
  const { projectId, subscriptionId } = state
  const resolved = yield* (yield* FeedResolver).resolve(state)
  const now = yield* Clock.currentTimeMillis
  const record = subscriptionCommands(projectId, subscriptionId)
  if (!("mediaId" in resolved)) {
    yield* record({ _tag: "RecordCheckFailure", subscriptionId, dueAt, now, error: resolved })
    yield* Effect.logInfo("subscription check failed", { subscriptionId, code: resolved.code })
    return "failed" as const
  }
  const { standings } = yield* quotaStandingsOf(projectId)
  const plan = planCheck(state, foundEntriesOf(resolved), admissionOfQuota(standings))
  const handled = yield* record({
    _tag: "PlanCheck",
    subscriptionId,
    dueAt,
    now,
    mediaId: resolved.mediaId,
    platform: resolved.platform,
    found: plan.found,
    fresh: plan.fresh.length,
    filtered: plan.filtered,
    seen: plan.seen,
    refreshed: plan.refreshed,
    candidates: plan.candidates.map(asQueued),
    requeue: plan.requeue,
    limit: plan.limit,
    hold: plan.hold
  })
  // Refused (paused, removed, checked since), or another run's plan recorded first: that one is followed.
  const after = handled.state
  if (after === null || after.removed || after.paused || after.plan?.dueAt !== dueAt) return null
  return after.plan
})

/** Creates the check's batch (the same entries on every run: one creation); a run that finds it made goes on. */
const createBatch = (state: Subscription, plan: OpenPlan, batchId: string, entries: ReadonlyArray<QueuedEntry>, now: number) =>
  Effect.gen(function* () {
    const { projectId, subscriptionId } = state
    const { jobMs } = yield* Lifetimes
    // A delivering subscription's jobs name its show (SubscriptionLibrary.ts), titled after the resolved playlist.
    const playlist = state.options?.delivery === undefined ? null : (yield* currentMedia(plan.mediaId)).state
    const options = subscriptionBatchOptions(state.options, {
      subscriptionId,
      playlistId: plan.mediaId,
      playlistTitle: playlist?.title ?? null,
      url: state.url
    })
    yield* batchCommands(
      projectId,
      batchId
    )({
      _tag: "CreateBatch",
      batchId,
      projectId,
      mediaId: plan.mediaId,
      platform: plan.platform,
      format: state.format,
      ...(options === undefined ? {} : { options }),
      subscriptionId,
      entries: entries.map((entry) => ({ entryId: entry.entryId, url: entry.url, title: entry.title })),
      now,
      lifetimeMs: jobMs
    }).pipe(Effect.catchTag("BatchAlreadyExists", () => Effect.void))
  })

/**
 * Runs the check of `dueAt` if the subscription still waits for it (not checked since, not paused, not removed): its
 * plan (made and recorded now, or an earlier run's), the claims of its candidates, its batch (the waiting entries it
 * queues again and the candidates it owns, as far as the quota lets), its record. Every step repeats safely: the plan
 * is recorded once per due time, the claims are the check's own, the batch id is the check's and its entries follow
 * from the plan alone, and the record is keyed by `dueAt`.
 */
export const runSubscriptionCheck = Effect.fn("SubscriptionCheck.run")(function* (
  projectId: string,
  subscriptionId: string,
  dueAt: number
) {
  const { state } = yield* currentSubscription(projectId, subscriptionId)
  if (state === null || state.removed || state.paused || state.nextCheckAt !== dueAt) return "not_due" satisfies CheckOutcome
  const plan = yield* planOf(state, dueAt)
  if (plan === "failed") return "failed" satisfies CheckOutcome
  if (plan === null) return "not_due" satisfies CheckOutcome
  const claimId = checkClaimId(subscriptionId, dueAt)
  const now = yield* Clock.currentTimeMillis
  const owned = yield* Effect.forEach(
    plan.candidates,
    (entry) => claimEntry(projectId, subscriptionId, claimId, plan.platform, entry, now),
    { concurrency: 4 }
  )
  const ownedKeys = new Set(plan.candidates.filter((_, i) => owned[i] === true).map((entry) => entry.archiveKey))
  // The state as it is now: a removal or pause recorded since the plan stops the batch here (and, should one land
  // between this read and the batch, the feeder starts nothing of a batch its subscription did not record).
  const { state: latest } = yield* currentSubscription(projectId, subscriptionId)
  if (latest === null || latest.removed || latest.paused || latest.nextCheckAt !== dueAt) return "not_due" satisfies CheckOutcome
  const checked = recordOfPlan(plan, latest.entries, ownedKeys)
  const batchId = checkBatchId(subscriptionId, dueAt)
  if (checked.queued.length > 0) yield* createBatch(latest, plan, batchId, checked.queued, now)
  yield* subscriptionCommands(
    projectId,
    subscriptionId
  )({
    _tag: "RecordCheck",
    subscriptionId,
    dueAt,
    now,
    queued: checked.queued.length === 0 ? null : { batchId, entries: checked.queued },
    waiting: checked.waiting
  })
  yield* Effect.logInfo("subscription checked", {
    subscriptionId,
    found: plan.found,
    new: plan.new,
    queued: checked.queued.length,
    waiting: checked.waiting.length
  })
  return "checked" satisfies CheckOutcome
})

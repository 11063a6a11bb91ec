// Extension: one check of a subscription for one due time: resolve the playlist, plan, claim in the archive, batch, record.
import { Clock, Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { archiveClaimOf, recordArchiveEntry } from "@mds/shared/domain/archive/ArchiveCommands"
import { batchCommands } from "@mds/shared/domain/batch/BatchCommands"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { foundEntriesOf } from "@mds/shared/domain/subscription/FoundEntries"
import { type FoundEntry, planCheck } from "@mds/shared/domain/subscription/SubscriptionCheckPlan"
import { currentSubscription, subscriptionCommands } from "@mds/shared/domain/subscription/SubscriptionCommands"
import type { CheckError, QueuedEntry } from "@mds/shared/domain/subscription/SubscriptionEvent"
import type { Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { derivedId } from "@mds/shared/ids/Ids"
import { requestResolve } from "@mds/shared/nats/ResolveRpcClient"

/** A check's claims in the project's archive: a retry of the same check (a restart in its middle) owns them again. */
export const checkClaimId = (subscriptionId: string, dueAt: number) => `${subscriptionId}@${dueAt}`

/** The batch of the entries one check queued: the same id on every retry of the check, so it is created once. */
export const checkBatchId = (subscriptionId: string, dueAt: number) => derivedId("bat", `subscription:${subscriptionId}@${dueAt}`)

/** The followed URL as a playlist, resolved with the project's cookies (the extractor applies them); or why not. */
const resolvePlaylist = (subscription: Subscription) =>
  requestResolve({ url: subscription.url, projectId: subscription.projectId, playlist: true }).pipe(
    Effect.map((reply): MediaResolved | CheckError => {
      if (reply._tag === "ResolveRejected") return { code: reply.code, message: reply.message }
      if (reply.media.entries === undefined) return { code: "not_a_playlist", message: "The URL no longer resolves as a playlist." }
      return reply.media
    }),
    Effect.catchTag("ResolveRpcFailed", (failure) =>
      Effect.succeed<CheckError>({
        code: failure.reason === "timeout" ? "extraction_timeout" : "service_unavailable",
        message: failure.message
      })
    )
  )

/**
 * Claims the entry in the project's archive; true when this check owns it (and so queues it). An entry another claim
 * recorded under its former key (before entries carried their extractor's id) is that claim's.
 */
const claimEntry = (projectId: string, subscriptionId: string, claimId: string, entry: FoundEntry, now: number) =>
  Effect.gen(function* () {
    if (entry.formerArchiveKey !== entry.archiveKey) {
      const former = yield* archiveClaimOf(projectId, entry.formerArchiveKey)
      if (former !== null && former !== claimId) return false
    }
    return yield* recordArchiveEntry({ projectId, archiveKey: entry.archiveKey, subscriptionId, claimId, now })
  })

export type CheckOutcome = "not_due" | "checked" | "failed"

/**
 * Runs the check of `dueAt` if the subscription still waits for it (not checked since, not paused, not removed). Every
 * step repeats safely: the claims are the check's own, the batch id is the check's, and the record is keyed by `dueAt`.
 */
export const runSubscriptionCheck = Effect.fn("SubscriptionCheck.run")(function* (
  projectId: string,
  subscriptionId: string,
  dueAt: number
) {
  const { state } = yield* currentSubscription(projectId, subscriptionId)
  if (state === null || state.removed || state.paused || state.nextCheckAt !== dueAt) return "not_due" satisfies CheckOutcome
  const record = subscriptionCommands(projectId, subscriptionId)
  const resolved = yield* resolvePlaylist(state)
  const now = yield* Clock.currentTimeMillis
  if (!("mediaId" in resolved)) {
    yield* record({ _tag: "RecordCheckFailure", subscriptionId, dueAt, now, error: resolved })
    yield* Effect.logInfo("subscription check failed", { subscriptionId, code: resolved.code })
    return "failed" satisfies CheckOutcome
  }
  const plan = planCheck(state, foundEntriesOf(resolved))
  const claimId = checkClaimId(subscriptionId, dueAt)
  const owned = yield* Effect.forEach(plan.candidates, (entry) => claimEntry(projectId, subscriptionId, claimId, entry, now), {
    concurrency: 4
  })
  const queued: ReadonlyArray<QueuedEntry> = plan.candidates
    .filter((_, i) => owned[i] === true)
    .map((entry) => ({ archiveKey: entry.archiveKey, entryId: entry.entryId, url: entry.url, title: entry.title }))
  const batchId = checkBatchId(subscriptionId, dueAt)
  if (queued.length > 0) {
    const { jobMs } = yield* Lifetimes
    yield* batchCommands(
      projectId,
      batchId
    )({
      _tag: "CreateBatch",
      batchId,
      projectId,
      mediaId: resolved.mediaId,
      platform: resolved.platform,
      format: state.format,
      ...(state.options === undefined ? {} : { options: state.options }),
      entries: queued.map((entry) => ({ entryId: entry.entryId, url: entry.url, title: entry.title })),
      now,
      lifetimeMs: jobMs
    }).pipe(Effect.catchTag("BatchAlreadyExists", () => Effect.void))
  }
  yield* record({
    _tag: "RecordCheck",
    subscriptionId,
    dueAt,
    now,
    found: plan.found,
    fresh: plan.fresh.length,
    filtered: plan.filtered,
    seen: plan.seen,
    queued: queued.length === 0 ? null : { batchId, entries: queued }
  })
  yield* Effect.logInfo("subscription checked", { subscriptionId, found: plan.found, new: plan.fresh.length, queued: queued.length })
  return "checked" satisfies CheckOutcome
})

// Extension: one check of a subscription for one due time: resolve the playlist, plan, claim in the archive, batch, record.
import { Clock, Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { archiveClaimOf, recordArchiveEntry } from "@mds/shared/domain/archive/ArchiveCommands"
import { batchCommands, currentBatch } from "@mds/shared/domain/batch/BatchCommands"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { type CheckRecord, queuedOfBatch, recordOfBatch, recordOfPlan } from "@mds/shared/domain/subscription/CheckRecord"
import { foundEntriesOf } from "@mds/shared/domain/subscription/FoundEntries"
import { type CheckPlan, type FoundEntry, planCheck } from "@mds/shared/domain/subscription/SubscriptionCheckPlan"
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

/** The entries of the check's batch if an earlier run of the check created it, as queued entries; null if none did. */
const batchOfEarlierRun = (projectId: string, batchId: string, found: ReadonlyArray<FoundEntry>, platform: string) =>
  Effect.map(currentBatch(projectId, batchId), ({ state }) =>
    state.status === "none" ? null : queuedOfBatch(state.entries, found, platform)
  )

/**
 * Claims the plan's candidates and creates the check's batch of those it owns. Only called once the batch is known to be
 * absent: an earlier run of the check that got as far as its batch claimed exactly that batch's entries (the claim id is
 * the check's), so a rerun that claimed again after it would own entries that appeared since, in no batch, and their
 * claims would keep every later check (another claim id) from queuing them.
 */
const claimAndBatch = Effect.fn("SubscriptionCheck.claimAndBatch")(function* (
  subscription: Subscription,
  dueAt: number,
  resolved: MediaResolved,
  found: ReadonlyArray<FoundEntry>,
  plan: CheckPlan,
  now: number
) {
  const { projectId, subscriptionId } = subscription
  const claimId = checkClaimId(subscriptionId, dueAt)
  const owned = yield* Effect.forEach(plan.candidates, (entry) => claimEntry(projectId, subscriptionId, claimId, entry, now), {
    concurrency: 4
  })
  const queued: ReadonlyArray<QueuedEntry> = plan.candidates
    .filter((_, i) => owned[i] === true)
    .map((entry) => ({ archiveKey: entry.archiveKey, entryId: entry.entryId, url: entry.url, title: entry.title }))
  if (queued.length === 0) return { queued, record: recordOfPlan(plan) }
  const batchId = checkBatchId(subscriptionId, dueAt)
  const { jobMs } = yield* Lifetimes
  return yield* batchCommands(
    projectId,
    batchId
  )({
    _tag: "CreateBatch",
    batchId,
    projectId,
    mediaId: resolved.mediaId,
    platform: resolved.platform,
    format: subscription.format,
    ...(subscription.options === undefined ? {} : { options: subscription.options }),
    entries: queued.map((entry) => ({ entryId: entry.entryId, url: entry.url, title: entry.title })),
    now,
    lifetimeMs: jobMs
  }).pipe(
    Effect.as({ queued, record: recordOfPlan(plan) }),
    // Another run of this check created it since the read (two runs at once: a lock that lapsed under a slow run). Its
    // entries are what the check queued; an entry this run alone claimed stays claimed in no batch (see docs/events.md).
    Effect.catchTag("BatchAlreadyExists", () =>
      Effect.map(batchOfEarlierRun(projectId, batchId, found, resolved.platform), (batched) => {
        const entries = batched ?? []
        return { queued: entries, record: recordOfBatch(plan, entries) }
      })
    )
  )
})

export type CheckOutcome = "not_due" | "checked" | "failed"

/**
 * Runs the check of `dueAt` if the subscription still waits for it (not checked since, not paused, not removed). Every
 * step repeats safely: the claims are the check's own, the batch id is the check's, and the record is keyed by `dueAt`.
 * A rerun whose batch an earlier run created claims nothing and records that batch (recordOfBatch).
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
  const found = foundEntriesOf(resolved)
  const plan = planCheck(state, found)
  const batchId = checkBatchId(subscriptionId, dueAt)
  const batched = yield* batchOfEarlierRun(projectId, batchId, found, resolved.platform)
  const checked: { readonly queued: ReadonlyArray<QueuedEntry>; readonly record: CheckRecord } =
    batched === null
      ? yield* claimAndBatch(state, dueAt, resolved, found, plan, now)
      : { queued: batched, record: recordOfBatch(plan, batched) }
  const { queued } = checked
  yield* record({
    _tag: "RecordCheck",
    subscriptionId,
    dueAt,
    now,
    ...checked.record,
    queued: queued.length === 0 ? null : { batchId, entries: queued }
  })
  yield* Effect.logInfo("subscription checked", {
    subscriptionId,
    found: checked.record.found,
    new: checked.record.fresh,
    queued: queued.length,
    ...(batched === null ? {} : { batchOfEarlierRun: true })
  })
  return "checked" satisfies CheckOutcome
})

// Extension: commands of the subscription aggregate and the pure decide function that turns them into events.
import { Result, Schema } from "effect"
import { type Decider, type Decision, emit, none } from "../Decider.ts"
import type { CheckError, EntryOutcome, LibraryEntry, QueuedEntry, SubscriptionDefinition, SubscriptionEvent } from "./SubscriptionEvent.ts"
import {
  evolveSubscription,
  FAILURES_BEFORE_FAILING,
  initialSubscriptionState,
  type Subscription,
  type SubscriptionState
} from "./SubscriptionState.ts"

/** The shortest interval between two scheduled checks: a feed is not a thing to poll every minute. */
export const MIN_CHECK_EVERY_MS = 15 * 60_000
/** The longest: a month. A check's due time must stay a date (an interval past JavaScript's date range is none). */
export const MAX_CHECK_EVERY_MS = 30 * 86_400_000
export const MAX_BACKFILL = 50
/** The first retry of a failed check; each further one waits twice as long, never longer than the interval. */
export const FIRST_RETRY_MS = 60_000
/**
 * The most entries a subscription keeps waiting (held back by a quota, or between tries): past it the oldest are given
 * up (`too_many_waiting`), so a subscription whose project is held for good stays a bounded document.
 */
export const MAX_WAITING_ENTRIES = 100

export class SubscriptionNotFound extends Schema.TaggedError<SubscriptionNotFound>()("SubscriptionNotFound", {
  subscriptionId: Schema.String
}) {}

export class SubscriptionAlreadyExists extends Schema.TaggedError<SubscriptionAlreadyExists>()("SubscriptionAlreadyExists", {
  subscriptionId: Schema.String
}) {}

export class InvalidSubscription extends Schema.TaggedError<InvalidSubscription>()("InvalidSubscription", {
  subscriptionId: Schema.String,
  message: Schema.String
}) {}

/** Check now asked of a paused subscription: resume it first. */
export class SubscriptionPausedNow extends Schema.TaggedError<SubscriptionPausedNow>()("SubscriptionPausedNow", {
  subscriptionId: Schema.String
}) {}

export type SubscriptionCommand =
  | ({ readonly _tag: "CreateSubscription"; readonly now: number } & SubscriptionDefinition)
  | {
      /** A check's plan (SubscriptionCheckPlanned), recorded before its claims; the first plan of a due time stands. */
      readonly _tag: "PlanCheck"
      readonly subscriptionId: string
      readonly dueAt: number
      readonly now: number
      readonly mediaId: string
      readonly platform: string
      readonly found: number
      readonly fresh: number
      readonly filtered: number
      readonly seen: ReadonlyArray<string>
      readonly refreshed: ReadonlyArray<string>
      readonly candidates: ReadonlyArray<QueuedEntry>
      readonly requeue: ReadonlyArray<string>
      readonly limit: number | null
      readonly hold: CheckError | null
    }
  | {
      readonly _tag: "RecordCheck"
      readonly subscriptionId: string
      /** The due time of the check this records: its id, so two runners of one check record it once. */
      readonly dueAt: number
      readonly now: number
      /** The entries the check's batch queued (the plan's waiting entries and the candidates it owns); none: no batch. */
      readonly queued: { readonly batchId: string; readonly entries: ReadonlyArray<QueuedEntry> } | null
      /** New entries the check owns that wait (past the quota's limit). */
      readonly waiting: ReadonlyArray<QueuedEntry>
    }
  | {
      /** What became of entries in flight (EntryOutcomes.ts); outcomes of entries not in flight there are left out. */
      readonly _tag: "SettleEntries"
      readonly subscriptionId: string
      readonly now: number
      readonly outcomes: ReadonlyArray<EntryOutcome>
    }
  | {
      readonly _tag: "RecordCheckFailure"
      readonly subscriptionId: string
      readonly dueAt: number
      readonly now: number
      readonly error: CheckError
    }
  | { readonly _tag: "CheckNow"; readonly subscriptionId: string; readonly now: number }
  | { readonly _tag: "PauseSubscription"; readonly subscriptionId: string; readonly now: number }
  | { readonly _tag: "ResumeSubscription"; readonly subscriptionId: string; readonly now: number }
  | { readonly _tag: "RemoveSubscription"; readonly subscriptionId: string; readonly now: number }
  | {
      /** Delivered entries a retention round found on their jobs; those the library holds already are left out. */
      readonly _tag: "RecordDeliveredEntries"
      readonly subscriptionId: string
      readonly now: number
      readonly entries: ReadonlyArray<LibraryEntry>
    }
  | {
      /** Entries whose files a retention round removed; those the library no longer holds are left out. */
      readonly _tag: "RecordRemovedEntries"
      readonly subscriptionId: string
      readonly now: number
      readonly jobIds: ReadonlyArray<string>
    }

export type SubscriptionRejection = SubscriptionNotFound | SubscriptionAlreadyExists | InvalidSubscription | SubscriptionPausedNow

/** How long after its n-th failure in a row a check is tried again. */
export const retryDelayMs = (failuresInARow: number, checkEveryMs: number): number =>
  Math.min(checkEveryMs, FIRST_RETRY_MS * 2 ** Math.max(0, failuresInARow - 1))

const invalid = (subscriptionId: string, message: string): Decision<SubscriptionEvent, SubscriptionRejection> =>
  Result.fail(new InvalidSubscription({ subscriptionId, message }))

export const decideSubscription = (
  command: SubscriptionCommand,
  state: SubscriptionState
): Decision<SubscriptionEvent, SubscriptionRejection> => {
  const { subscriptionId } = command
  if (command._tag === "CreateSubscription") {
    if (state !== null) return Result.fail(new SubscriptionAlreadyExists({ subscriptionId }))
    // The API's schema refuses these first (400); the decider keeps the aggregate's invariants whoever asks.
    if (!(command.checkEveryMs >= MIN_CHECK_EVERY_MS && command.checkEveryMs <= MAX_CHECK_EVERY_MS))
      return invalid(subscriptionId, "check_every is from 900 seconds (15 minutes) to 2592000 (30 days)")
    if (!Number.isInteger(command.backfill) || command.backfill < 0 || command.backfill > MAX_BACKFILL)
      return invalid(subscriptionId, `backfill is a whole number from 0 to ${MAX_BACKFILL}`)
    if (command.retention !== undefined && command.options?.delivery === undefined)
      return invalid(subscriptionId, "retention needs a destination: it removes only files the service delivered")
    const { _tag, now, options, ...definition } = command
    return emit({
      _tag: "SubscriptionCreated",
      v: 1,
      ...definition,
      ...(options === undefined || Object.keys(options).length === 0 ? {} : { options }),
      createdAt: now
    })
  }
  // A removed subscription is not found, whatever is asked of it (a check that was running when it went records nothing).
  const fromChecks = command._tag === "PlanCheck" || command._tag === "RecordCheck" || command._tag === "RecordCheckFailure"
  if (state === null || state.removed) {
    return fromChecks ||
      command._tag === "SettleEntries" ||
      command._tag === "RemoveSubscription" ||
      command._tag === "RecordDeliveredEntries" ||
      command._tag === "RecordRemovedEntries"
      ? none
      : Result.fail(new SubscriptionNotFound({ subscriptionId }))
  }
  // A check's outcome is recorded once: another runner of the same check (or a retry) finds it moved on. A paused
  // subscription plans and records nothing: its open plan waits for the rerun after the resume.
  if (fromChecks && (command.dueAt !== state.nextCheckAt || state.paused)) return none
  switch (command._tag) {
    case "PlanCheck": {
      if (state.plan !== null) return none
      const { dueAt, now, mediaId, platform, found, fresh, filtered, seen, refreshed, candidates, requeue, limit, hold } = command
      return emit({
        _tag: "SubscriptionCheckPlanned",
        v: 1,
        subscriptionId,
        dueAt,
        at: now,
        mediaId,
        platform,
        found,
        new: fresh,
        filtered,
        seen,
        refreshed,
        candidates,
        requeue,
        limit,
        hold
      })
    }
    case "RecordCheck":
      return recordCheck(command, state)
    case "SettleEntries": {
      const inFlight = new Set(state.entries.flatMap((entry) => (entry.batchId === null ? [] : [`${entry.batchId} ${entry.archiveKey}`])))
      const outcomes = command.outcomes.filter((outcome) => inFlight.has(`${outcome.batchId} ${outcome.archiveKey}`))
      if (outcomes.length === 0) return none
      return emit({ _tag: "SubscriptionEntriesSettled", v: 1, subscriptionId, outcomes, at: command.now })
    }
    case "RecordCheckFailure": {
      // A check whose plan is recorded does not fail: its reruns follow the plan (no resolve) until it is recorded.
      if (state.plan !== null) return none
      const failuresInARow = state.failuresInARow + 1
      const failed: SubscriptionEvent = {
        _tag: "SubscriptionCheckFailed",
        v: 1,
        subscriptionId,
        at: command.now,
        error: command.error,
        failuresInARow,
        nextCheckAt: command.now + retryDelayMs(failuresInARow, state.checkEveryMs)
      }
      // Said once, when the subscription becomes failing; it recovers by itself with the next successful check.
      if (failuresInARow !== FAILURES_BEFORE_FAILING) return emit(failed)
      return emit(failed, { _tag: "SubscriptionFailing", v: 1, subscriptionId, error: command.error, at: command.now })
    }
    case "CheckNow":
      if (state.paused) return Result.fail(new SubscriptionPausedNow({ subscriptionId }))
      // A check already due is running or about to: it is the check asked for. Moving the due time under a running
      // check would make its record (keyed by its due time) refused, and the entries it queued never announced.
      if (state.nextCheckAt <= command.now) return none
      return emit({ _tag: "SubscriptionCheckDue", v: 1, subscriptionId, dueAt: command.now })
    case "PauseSubscription":
      return state.paused ? none : emit({ _tag: "SubscriptionPaused", v: 1, subscriptionId, at: command.now })
    case "ResumeSubscription":
      // A check missed while paused runs once on resume (nextCheckAt is past), not once per missed period.
      return state.paused ? emit({ _tag: "SubscriptionResumed", v: 1, subscriptionId, at: command.now }) : none
    case "RemoveSubscription":
      return emit({ _tag: "SubscriptionRemoved", v: 1, subscriptionId, at: command.now })
    case "RecordDeliveredEntries": {
      // Only a retained subscription keeps a library: nothing of another is ever removed.
      if (state.retention === undefined) return none
      const known = new Set(state.library.map((entry) => entry.jobId))
      const entries = command.entries.filter((entry) => !known.has(entry.jobId))
      return entries.length === 0 ? none : emit({ _tag: "SubscriptionEntriesDelivered", v: 1, subscriptionId, entries, at: command.now })
    }
    case "RecordRemovedEntries": {
      const held = new Set(state.library.map((entry) => entry.jobId))
      const jobIds = [...new Set(command.jobIds)].filter((jobId) => held.has(jobId))
      return jobIds.length === 0 ? none : emit({ _tag: "SubscriptionEntriesRemoved", v: 1, subscriptionId, jobIds, at: command.now })
    }
  }
}

type RecordCheck = Extract<SubscriptionCommand, { readonly _tag: "RecordCheck" }>

/**
 * The check of its plan: SubscriptionChecked (v2) and, when it queued entries, SubscriptionEntriesQueued (v2); past
 * MAX_WAITING_ENTRIES waiting entries, the oldest are given up in the same decision.
 */
const recordCheck = (command: RecordCheck, state: Subscription): Decision<SubscriptionEvent, SubscriptionRejection> => {
  const { plan } = state
  if (plan === null || plan.dueAt !== command.dueAt) return none
  const { subscriptionId, now } = command
  const queued = command.queued === null || command.queued.entries.length === 0 ? null : command.queued
  const events: Array<SubscriptionEvent> = [
    {
      _tag: "SubscriptionChecked",
      v: 2,
      subscriptionId,
      at: now,
      found: plan.found,
      new: plan.new,
      filtered: plan.filtered,
      queued: queued?.entries.length ?? 0,
      seen: [],
      nextCheckAt: now + state.checkEveryMs,
      dueAt: command.dueAt,
      waiting: command.waiting
    }
  ]
  if (queued !== null) {
    events.push({ _tag: "SubscriptionEntriesQueued", v: 2, subscriptionId, batchId: queued.batchId, entries: queued.entries, at: now })
  }
  const after = events.reduce<SubscriptionState>(evolveSubscription, state)
  const waiting = (after?.entries ?? []).filter((entry) => entry.batchId === null)
  const excess = waiting.slice(0, Math.max(0, waiting.length - MAX_WAITING_ENTRIES))
  if (excess.length > 0) {
    const reason = { code: "too_many_waiting", message: `More than ${MAX_WAITING_ENTRIES} entries were waiting; the oldest were given up.` }
    const outcomes = excess.map(
      (entry): EntryOutcome => ({ archiveKey: entry.archiveKey, batchId: null, result: "given_up", failed: false, reason, jobId: null })
    )
    events.push({ _tag: "SubscriptionEntriesSettled", v: 1, subscriptionId, outcomes, at: now })
  }
  return emit<SubscriptionEvent>(...events)
}

export const SubscriptionDecider: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState, SubscriptionRejection> = {
  initialState: initialSubscriptionState,
  evolve: evolveSubscription,
  decide: decideSubscription
}

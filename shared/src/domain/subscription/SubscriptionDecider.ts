// Extension: commands of the subscription aggregate and the pure decide function that turns them into events.
import { Result, Schema } from "effect"
import type { Decider } from "../Decider.ts"
import type { DownloadOptions } from "../job/DownloadOptions.ts"
import type { CheckError, QueuedEntry, SubscriptionEvent, SubscriptionFilters } from "./SubscriptionEvent.ts"
import { evolveSubscription, FAILURES_BEFORE_FAILING, initialSubscriptionState, type SubscriptionState } from "./SubscriptionState.ts"

/** The shortest interval between two scheduled checks: a feed is not a thing to poll every minute. */
export const MIN_CHECK_EVERY_MS = 15 * 60_000
export const MAX_BACKFILL = 50
/** The first retry of a failed check; each further one waits twice as long, never longer than the interval. */
export const FIRST_RETRY_MS = 60_000

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
  | {
      readonly _tag: "CreateSubscription"
      readonly subscriptionId: string
      readonly projectId: string
      readonly url: string
      readonly platform: string
      readonly format: string
      readonly options?: DownloadOptions
      readonly checkEveryMs: number
      readonly filters: SubscriptionFilters
      readonly backfill: number
      readonly now: number
    }
  | {
      readonly _tag: "RecordCheck"
      readonly subscriptionId: string
      /** The due time of the check this records: its id, so two runners of one check record it once. */
      readonly dueAt: number
      readonly now: number
      readonly found: number
      readonly fresh: number
      readonly filtered: number
      readonly seen: ReadonlyArray<string>
      /** The entries the check queued (claimed in the project's archive), as one batch; none: no batch. */
      readonly queued: { readonly batchId: string; readonly entries: ReadonlyArray<QueuedEntry> } | null
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

export type SubscriptionRejection = SubscriptionNotFound | SubscriptionAlreadyExists | InvalidSubscription | SubscriptionPausedNow

type Decision = Result.Result<ReadonlyArray<SubscriptionEvent>, SubscriptionRejection>
const none: Decision = Result.succeed([])
const emit = (...events: ReadonlyArray<SubscriptionEvent>): Decision => Result.succeed(events)

/** How long after its n-th failure in a row a check is tried again. */
export const retryDelayMs = (failuresInARow: number, checkEveryMs: number): number =>
  Math.min(checkEveryMs, FIRST_RETRY_MS * 2 ** Math.max(0, failuresInARow - 1))

const invalid = (subscriptionId: string, message: string): Decision => Result.fail(new InvalidSubscription({ subscriptionId, message }))

export const decideSubscription = (command: SubscriptionCommand, state: SubscriptionState): Decision => {
  const { subscriptionId } = command
  if (command._tag === "CreateSubscription") {
    if (state !== null) return Result.fail(new SubscriptionAlreadyExists({ subscriptionId }))
    if (command.checkEveryMs < MIN_CHECK_EVERY_MS) return invalid(subscriptionId, "check_every is at least 900 seconds (15 minutes)")
    if (!Number.isInteger(command.backfill) || command.backfill < 0 || command.backfill > MAX_BACKFILL)
      return invalid(subscriptionId, `backfill is a whole number from 0 to ${MAX_BACKFILL}`)
    return emit({
      _tag: "SubscriptionCreated",
      v: 1,
      subscriptionId,
      projectId: command.projectId,
      url: command.url,
      platform: command.platform,
      format: command.format,
      ...(command.options === undefined || Object.keys(command.options).length === 0 ? {} : { options: command.options }),
      checkEveryMs: command.checkEveryMs,
      filters: command.filters,
      backfill: command.backfill,
      createdAt: command.now
    })
  }
  // A removed subscription is not found, whatever is asked of it (a check that was running when it went records nothing).
  if (state === null || state.removed) {
    return command._tag === "RecordCheck" || command._tag === "RecordCheckFailure" || command._tag === "RemoveSubscription"
      ? none
      : Result.fail(new SubscriptionNotFound({ subscriptionId }))
  }
  // A check's outcome is recorded once: another runner of the same check (or a retry) finds it moved on.
  if ((command._tag === "RecordCheck" || command._tag === "RecordCheckFailure") && command.dueAt !== state.nextCheckAt) return none
  switch (command._tag) {
    case "RecordCheck": {
      const checked: SubscriptionEvent = {
        _tag: "SubscriptionChecked",
        v: 1,
        subscriptionId,
        at: command.now,
        found: command.found,
        new: command.fresh,
        filtered: command.filtered,
        queued: command.queued?.entries.length ?? 0,
        seen: command.seen,
        nextCheckAt: command.now + state.checkEveryMs
      }
      if (command.queued === null || command.queued.entries.length === 0) return emit(checked)
      return emit(checked, {
        _tag: "SubscriptionEntriesQueued",
        v: 1,
        subscriptionId,
        batchId: command.queued.batchId,
        entries: command.queued.entries,
        at: command.now
      })
    }
    case "RecordCheckFailure": {
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
  }
}

export const SubscriptionDecider: Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState, SubscriptionRejection> = {
  initialState: initialSubscriptionState,
  evolve: evolveSubscription,
  decide: decideSubscription
}

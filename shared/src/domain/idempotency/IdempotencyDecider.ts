// One Idempotency-Key: the first request claims it, binds it to the job it created (or releases it on failure);
// later requests with the same body get that job, with another body a rejection.
import { Result, Schema } from "effect"
import type { Decider } from "../Decider.ts"
import type { IdempotencyEvent } from "./IdempotencyEvent.ts"

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {}) {}

/** Another request with this key is still being carried out. */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {}) {}

export type IdempotencyState =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Pending"; readonly requestHash: string; readonly claimedAt: number }
  | { readonly _tag: "Bound"; readonly requestHash: string; readonly jobId: string }

export type IdempotencyCommand =
  | {
      readonly _tag: "ClaimKey"
      readonly projectId: string
      readonly requestHash: string
      readonly now: number
      /** A claim older than this was abandoned (its gateway died mid-request) and may be taken over. */
      readonly staleAfterMs: number
    }
  | { readonly _tag: "BindKey"; readonly requestHash: string; readonly jobId: string; readonly now: number }
  | { readonly _tag: "ReleaseKey"; readonly requestHash: string; readonly now: number }

export type IdempotencyRejection = IdempotencyKeyReused | IdempotencyKeyInUse

export const initialIdempotencyState = (): IdempotencyState => ({ _tag: "Free" })

export const evolveIdempotency = (state: IdempotencyState, event: IdempotencyEvent): IdempotencyState => {
  switch (event._tag) {
    case "IdempotencyKeyClaimed":
      return { _tag: "Pending", requestHash: event.requestHash, claimedAt: event.at }
    case "IdempotencyKeyBound":
      return state._tag === "Pending" ? { _tag: "Bound", requestHash: state.requestHash, jobId: event.jobId } : state
    case "IdempotencyKeyReleased":
      return state._tag === "Pending" ? { _tag: "Free" } : state
  }
}

const ours = (state: IdempotencyState, requestHash: string) => state._tag === "Pending" && state.requestHash === requestHash

/** A claim: the key is free, bound (the same body answers with its job), or pending (taken over once stale). */
const decideClaim = (
  command: Extract<IdempotencyCommand, { readonly _tag: "ClaimKey" }>,
  state: IdempotencyState
): Result.Result<ReadonlyArray<IdempotencyEvent>, IdempotencyRejection> => {
  const claim: IdempotencyEvent = {
    _tag: "IdempotencyKeyClaimed",
    v: 1,
    projectId: command.projectId,
    requestHash: command.requestHash,
    at: command.now
  }
  switch (state._tag) {
    case "Free":
      return Result.succeed([claim])
    case "Bound":
      // Nothing to append: the caller answers with the bound job.
      return state.requestHash === command.requestHash ? Result.succeed([]) : Result.fail(new IdempotencyKeyReused())
    case "Pending":
      if (state.requestHash !== command.requestHash) return Result.fail(new IdempotencyKeyReused())
      if (command.now - state.claimedAt >= command.staleAfterMs) return Result.succeed([claim])
      return Result.fail(new IdempotencyKeyInUse())
  }
}

export const decideIdempotency = (
  command: IdempotencyCommand,
  state: IdempotencyState
): Result.Result<ReadonlyArray<IdempotencyEvent>, IdempotencyRejection> => {
  switch (command._tag) {
    case "ClaimKey":
      return decideClaim(command, state)
    // Binding and releasing only apply to the pending claim they belong to; anything else is a no-op.
    case "BindKey":
      return Result.succeed(
        ours(state, command.requestHash) ? [{ _tag: "IdempotencyKeyBound", v: 1, jobId: command.jobId, at: command.now }] : []
      )
    case "ReleaseKey":
      return Result.succeed(ours(state, command.requestHash) ? [{ _tag: "IdempotencyKeyReleased", v: 1, at: command.now }] : [])
  }
}

export const IdempotencyDecider: Decider<IdempotencyCommand, IdempotencyEvent, IdempotencyState, IdempotencyRejection> = {
  initialState: initialIdempotencyState,
  evolve: evolveIdempotency,
  decide: decideIdempotency
}

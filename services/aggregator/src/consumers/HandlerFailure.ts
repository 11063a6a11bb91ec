// A handler's failure as a verdict: transient when a store or NATS did not answer (retried, never counted), otherwise
// counted against the message, which its consumer parks once it failed the handler CONSUMER_PARK_AFTER_FAILURES times.
import { isUnavailable } from "@mds/shared/runtime/Unavailable"
import { Cause } from "effect"

/** What a handler's failure tells JetStream: come again after `delayMs`; `transient` failures never park the message. */
export interface Failed {
  readonly _tag: "Failed"
  readonly delayMs: number
  readonly reason: string
  readonly transient: boolean
}

const isFlaggedUnavailable = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "unavailable" in error && error.unavailable === true

/**
 * Transient: some error in the cause says the store did not answer (an adapter's `unavailable` flag, a NATS or MongoDB
 * "no answer" error, a refused socket, a timeout), or the handler was interrupted (a shutdown). Anything else (a bug,
 * a refusal the store answered with, an event the code cannot take) is the message's.
 */
export const isTransient = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.length === 0 ||
  cause.reasons.some((reason) => {
    if (Cause.isFailReason(reason)) return isFlaggedUnavailable(reason.error) || isUnavailable(reason.error)
    if (Cause.isDieReason(reason)) return isUnavailable(reason.defect)
    return true
  })

export const failedVerdict = (cause: Cause.Cause<unknown>, delayMs: number): Failed => ({
  _tag: "Failed",
  delayMs,
  reason: Cause.pretty(cause).slice(0, 1000),
  transient: isTransient(cause)
})

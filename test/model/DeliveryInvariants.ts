// The delivery's invariants: a job with a destination completes only once its file is in the destination under its
// path, written there exactly once (a retried or taken-over delivery never writes over it); once settled, no stored
// job is left waiting for its delivery.
import { isAwaitingDelivery, jobStatus } from "@mds/shared/domain/job/JobState"
import type { World } from "./World.ts"

/** Every object in the destination was written once; a completed job with a destination was delivered to its path. */
export const deliveredExactlyOnce = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (const [path, writes] of world.destination.writes) if (writes > 1) problems.push(`${path} was written ${writes} times`)
  for (const [subject, state] of world.jobStates()) {
    const order = state?.options?.delivery
    if (state === null || order === undefined || jobStatus(state) !== "completed") continue
    // Removed by retention once delivered (RetentionInvariants.ts checks what was removed).
    if (state.delivery?.status !== "delivered" && state.delivery?.status !== "removed") {
      problems.push(`${subject} completed with its delivery ${state.delivery?.status ?? "never stored"}`)
      continue
    }
    const key = `${state.projectId}/${order.destinationId}/${state.delivery.path}`
    if (world.destination.writes.get(key) !== 1)
      problems.push(`${subject} completed but ${key} was written ${world.destination.writes.get(key) ?? 0} times`)
  }
  return problems
}

/** Once settled, no job waits for a delivery (it was delivered, or failed, or the job ended otherwise). */
export const noDeliveryLeftPending = (world: World): ReadonlyArray<string> =>
  [...world.jobStates()].flatMap(([subject, state]) =>
    isAwaitingDelivery(state) && state !== null && world.clock.now < state.expiresAt ? [`${subject} still waits for its delivery`] : []
  )

export const DELIVERY_SAFETY = { deliveredExactlyOnce }
export const DELIVERY_SETTLED = { noDeliveryLeftPending }

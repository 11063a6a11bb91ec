// Retention's invariants: only files the service delivered for the retained subscription are ever removed (a job's
// media and own sidecars, once delivered), never a show's shared file; a job read as removed had all of them removed;
// and each removal is recorded once.
import { removablePaths } from "@mds/shared/domain/job/JobDelivery"
import { RETAINED_SUBSCRIPTION, type World } from "./World.ts"

export const onlyDeliveredFilesRemoved = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const removable = new Map<string, string>()
  for (const [subject, state] of world.jobStates()) {
    const delivery = state?.delivery
    const order = state?.options?.delivery
    if (state === null || delivery === undefined || order?.library?.subscriptionId !== RETAINED_SUBSCRIPTION) continue
    const keys = removablePaths(delivery).map((path) => `${state.projectId}/${delivery.destinationId}/${path}`)
    if (delivery.status === "delivered" || delivery.status === "removed") for (const key of keys) removable.set(key, subject)
    if (delivery.status === "removed") {
      for (const key of keys) if (!world.destination.removals.has(key)) problems.push(`${subject} reads removed but ${key} was not removed`)
    }
  }
  for (const key of world.destination.removals.keys()) {
    if (!removable.has(key)) problems.push(`${key} was removed but is no delivered file of the retained subscription`)
    else if (!world.destination.writes.has(key)) problems.push(`${key} was removed but never written by the service`)
  }
  return problems
}

/** Each job's removal is recorded once, however often a round carried it out (a crash, a second round). */
export const removalRecordedOnce = (world: World): ReadonlyArray<string> => {
  const counts = new Map<string, number>()
  for (const { message } of world.written) {
    const payload = message.payload as { readonly _tag?: string; readonly jobId?: string }
    if (payload._tag === "JobDeliveryRemoved" && payload.jobId !== undefined)
      counts.set(payload.jobId, (counts.get(payload.jobId) ?? 0) + 1)
  }
  return [...counts].flatMap(([jobId, n]) => (n > 1 ? [`${jobId}: JobDeliveryRemoved recorded ${n} times`] : []))
}

export const RETENTION_SAFETY = { onlyDeliveredFilesRemoved, removalRecordedOnce }

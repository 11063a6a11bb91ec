// The gateway's last known admission state of each project, so that a claim usually appends without reading first.
import type { AdmissionState } from "@mds/shared/domain/admission/AdmissionDecider"
import { Context, Layer } from "effect"

export interface KnownAdmission {
  readonly state: AdmissionState
  readonly lastSeq: number
}

/** Projects remembered (the least recently used forgotten first); forgetting one only costs one read. */
const CAPACITY = 10_000

/**
 * Only a hint: the claim's append still expects this sequence, so a state another gateway or a worker has moved
 * on conflicts and is read again (handleCommand's `known`); a refusal is never decided from it alone.
 */
export class AdmissionStates extends Context.Service<AdmissionStates, {
  get(projectId: string): KnownAdmission | undefined
  set(projectId: string, known: KnownAdmission): void
  forget(projectId: string): void
}>()("mds/gateway/jobs/AdmissionStates") {
  static readonly layer = Layer.sync(AdmissionStates, () => {
    const known = new Map<string, KnownAdmission>()
    return AdmissionStates.of({
      get: (projectId) => known.get(projectId),
      set: (projectId, value) => {
        known.delete(projectId)
        known.set(projectId, value)
        if (known.size > CAPACITY) {
          const oldest = known.keys().next()
          if (oldest.done !== true) known.delete(oldest.value)
        }
      },
      forget: (projectId) => {
        known.delete(projectId)
      }
    })
  })
}

// A process's last known admission state of each project, so that a claim usually appends without reading first
// (the gateway keeps one; a process without it reads before each claim).
import type { AdmissionState } from "../../domain/admission/AdmissionDecider.ts"
import { Context, Effect, Layer, Semaphore } from "effect"
import { LRUCache } from "lru-cache"

export interface KnownAdmission {
  readonly state: AdmissionState
  readonly lastSeq: number
}

/** Projects remembered (the least recently used forgotten first); forgetting one only costs one read. */
const CAPACITY = 10_000

/**
 * Only a hint: the claim's append still expects this sequence, so a state another gateway or a worker has moved
 * on conflicts and is read again (the command handler's `known`); a refusal is never decided from it alone.
 */
export class AdmissionStates extends Context.Service<
  AdmissionStates,
  {
    get(projectId: string): KnownAdmission | undefined
    set(projectId: string, known: KnownAdmission): void
    forget(projectId: string): void
    /**
     * Runs one project's admissions from this gateway one at a time: a second request then starts from the first's
     * outcome instead of conflicting with it and reading the subject (two jobs sent together are the common case).
     */
    oneAtATime<A, E, R>(projectId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  }
>()("mds/application/admission/AdmissionStates") {
  static readonly layer = Layer.sync(AdmissionStates, () => {
    const known = new LRUCache<string, KnownAdmission>({ max: CAPACITY })
    /** A lock per project with admissions in flight here, dropped when the last one ends. */
    const locks = new Map<string, { readonly lock: Semaphore.Semaphore; holders: number }>()
    const oneAtATime = <A, E, R>(projectId: string, effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        let entry = locks.get(projectId)
        if (entry === undefined) {
          entry = { lock: Semaphore.makeUnsafe(1), holders: 0 }
          locks.set(projectId, entry)
        }
        const held = entry
        held.holders++
        return held.lock
          .withPermits(1)(effect)
          .pipe(
            Effect.ensuring(
              Effect.sync(() => {
                if (--held.holders === 0) locks.delete(projectId)
              })
            )
          )
      })
    return AdmissionStates.of({
      oneAtATime,
      get: (projectId) => known.get(projectId),
      set: (projectId, value) => {
        known.set(projectId, value)
      },
      forget: (projectId) => {
        known.delete(projectId)
      }
    })
  })
}

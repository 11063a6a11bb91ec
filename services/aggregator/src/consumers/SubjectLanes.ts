// Runs work items concurrently across lanes while items with the same key stay in order on one lane.
import { Effect, Queue, type Scope } from "effect"

const laneOf = (key: string, lanes: number) => {
  // FNV-1a: cheap, stable across processes, spreads similar subjects well.
  let hash = 0x811c9dc5
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % lanes
}

export interface SubjectLanes<A> {
  /** Waits while the item's lane is full, which backpressures the consumer. */
  readonly dispatch: (item: A) => Effect.Effect<void>
}

/** Lane fibers live in the caller's scope; `handle` must deal with its own failures. */
export const makeSubjectLanes = <A>(options: {
  readonly lanes: number
  readonly capacity: number
  readonly keyOf: (item: A) => string
  readonly handle: (item: A) => Effect.Effect<void>
}): Effect.Effect<SubjectLanes<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queues: Array<Queue.Queue<A>> = []
    for (let i = 0; i < options.lanes; i++) {
      const queue = yield* Queue.bounded<A>(options.capacity)
      queues.push(queue)
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(queue), options.handle)))
    }
    return {
      dispatch: (item) => Queue.offer(queues[laneOf(options.keyOf(item), options.lanes)]!, item).pipe(Effect.asVoid)
    }
  })

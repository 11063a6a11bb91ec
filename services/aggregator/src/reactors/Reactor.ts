// The aggregator's process managers in one shape: durable consumers wake keys, a round reacts to a key's state, and a
// reconcile looks at every candidate at start and on a timer for what a lost or reordered wake-up hid.
import { Effect, Schedule, Semaphore } from "effect"
import {
  type DeliveredMessage,
  type DurableConsumerOptions,
  ensureDurableConsumer,
  runDurableConsumer,
  type Verdict
} from "../consumers/DurableConsumer.ts"
import { failedVerdict } from "../consumers/HandlerFailure.ts"

/** What became of one round of one key. */
export type RoundOutcome =
  /** Nothing left to do now. */
  | { readonly _tag: "Done" }
  /** Look again in `delayMs` (a backoff, a full project, a failed delivery): a woken message comes again then. */
  | { readonly _tag: "Later"; readonly delayMs: number; readonly reason: string }
  /** Nothing left to do ever, unless an event about the key itself says otherwise: reconciles pass it by. */
  | { readonly _tag: "Over" }

export const Done: RoundOutcome = { _tag: "Done" }
export const Over: RoundOutcome = { _tag: "Over" }
export const later = (delayMs: number, reason: string): RoundOutcome => ({ _tag: "Later", delayMs, reason })

/** A key to run a round for, and what woke it. */
export interface WakeUp<K, T> {
  readonly key: K
  readonly trigger: T
  /** Found by a listing rather than named by the event (a slot freed in the project): pass the key by if it is over. */
  readonly unlessOver?: true
}

/** A durable consumer whose messages wake keys. */
export interface WakeSource<K, T> extends Omit<DurableConsumerOptions, "handle"> {
  /**
   * The keys a message wakes (none: it changes nothing this reactor decides), or null for a message that cannot be
   * read (it is terminated). May read what it needs to know which keys; a failure has the message come again.
   */
  readonly wakes: (msg: DeliveredMessage) => Effect.Effect<ReadonlyArray<WakeUp<K, T>> | null, unknown>
}

export interface ReactorOptions<K, T, R> {
  /** For the logs. */
  readonly name: string
  /** Names the key: rounds of one key run one at a time, and an over key is remembered by it. */
  readonly keyOf: (key: K) => string
  /** Reads the key's state, reacts (the pure `react`), carries out the commands. Safe to repeat. */
  readonly round: (key: K, trigger: T) => Effect.Effect<RoundOutcome, unknown, R>
  readonly wakeSources: ReadonlyArray<WakeSource<K, T>>
  /** How soon a message whose round failed comes again; 1 s unless given. */
  readonly retryMs?: number
  /** Every candidate looked at again, at start and every `everyMs`; absent where the consumers are the only source. */
  readonly reconcile?: {
    readonly everyMs: number
    /** The keys that may have something to do; those over are passed by. */
    readonly candidates: Effect.Effect<ReadonlyArray<K>, unknown, R>
    readonly trigger: T
    /** The first reconcile waits this long (state that is followed in first); 0 unless given. */
    readonly firstAfterMs?: number
    /** How many keys' rounds a reconcile runs side by side (rounds that take long: a check); 1 unless given. */
    readonly concurrency?: number
  }
}

/** A message's verdict from its rounds: acknowledged unless one must look again, then redelivered at the soonest. */
export const verdictOf = (outcomes: ReadonlyArray<RoundOutcome>): Verdict => {
  let wait: { readonly delayMs: number; readonly reason: string } | null = null
  for (const outcome of outcomes) {
    if (outcome._tag === "Later" && (wait === null || outcome.delayMs < wait.delayMs)) wait = outcome
  }
  return wait === null ? { _tag: "Ack" } : { _tag: "Nak", delayMs: Math.max(0, wait.delayMs), reason: wait.reason }
}

/** The rounds of a reactor's keys, whatever woke them: one at a time per key, over keys remembered. */
export interface ReactorRounds<K, T> {
  /** Runs the rounds a message woke, one after the other. */
  readonly wake: (wakes: ReadonlyArray<WakeUp<K, T>>) => Effect.Effect<ReadonlyArray<RoundOutcome>, unknown>
  /**
   * Runs a round for each candidate not over (and forgets the over keys no longer listed), `concurrency` (1 unless
   * given) side by side; logs what failed.
   */
  readonly reconcile: (candidates: ReadonlyArray<K>, trigger: T, concurrency?: number) => Effect.Effect<void>
}

export const makeReactorRounds = <K, T, R>(
  options: Pick<ReactorOptions<K, T, R>, "name" | "keyOf" | "round">
): Effect.Effect<ReactorRounds<K, T>, never, R> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>()
    /** Keys over for good, by name; pruned to the candidates at each reconcile. */
    const over = new Set<string>()
    /** One round at a time per key (two racing would only repeat what repeats as nothing, but cost reads). */
    const locks = new Map<string, { readonly lock: Semaphore.Semaphore; users: number }>()

    const oneAtATime = <A, E>(id: string, effect: Effect.Effect<A, E>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          let entry = locks.get(id)
          if (entry === undefined) {
            entry = { lock: Semaphore.makeUnsafe(1), users: 0 }
            locks.set(id, entry)
          }
          entry.users++
          return entry
        }),
        (entry) => entry.lock.withPermits(1)(effect),
        (entry) =>
          Effect.sync(() => {
            entry.users--
            if (entry.users === 0) locks.delete(id)
          })
      )

    const runRound = (key: K, trigger: T, unlessOver: boolean): Effect.Effect<RoundOutcome, unknown> =>
      Effect.suspend(() => {
        const id = options.keyOf(key)
        if (unlessOver && over.has(id)) return Effect.succeed(Done)
        return oneAtATime(id, Effect.provideContext(options.round(key, trigger), context)).pipe(
          Effect.tap((outcome) =>
            Effect.sync(() => {
              if (outcome._tag === "Over") over.add(id)
              else over.delete(id)
            })
          )
        )
      })

    const wake = (wakes: ReadonlyArray<WakeUp<K, T>>) =>
      Effect.forEach(wakes, (wakeUp) => runRound(wakeUp.key, wakeUp.trigger, wakeUp.unlessOver === true))

    const reconcile = (candidates: ReadonlyArray<K>, trigger: T, concurrency = 1) =>
      Effect.gen(function* () {
        const listed = new Set(candidates.map(options.keyOf))
        for (const id of over) if (!listed.has(id)) over.delete(id)
        yield* Effect.forEach(
          candidates,
          (key) =>
            runRound(key, trigger, true).pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning(
                  `${options.name}: reconcile failed for one key; tried again next time`,
                  { key: options.keyOf(key) },
                  cause
                )
              )
            ),
          { concurrency, discard: true }
        )
      })

    return { wake, reconcile } satisfies ReactorRounds<K, T>
  })

/** Runs the reactor in the caller's scope: its consumers, its reconcile, until the scope closes. */
export const runReactor = <K, T, R>(options: ReactorOptions<K, T, R>) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<R>()
    const rounds = yield* makeReactorRounds(options)

    const handle =
      (source: WakeSource<K, T>) =>
      (msg: DeliveredMessage): Effect.Effect<Verdict> =>
        source.wakes(msg).pipe(
          Effect.flatMap((wakes) =>
            wakes === null
              ? Effect.succeed<Verdict>({ _tag: "Term", reason: `${options.name}: unreadable message` })
              : Effect.map(rounds.wake(wakes), verdictOf)
          ),
          // A failed round comes again after retryMs; one that keeps failing on this message is parked.
          Effect.catchCause((cause) => Effect.succeed<Verdict>(failedVerdict(cause, options.retryMs ?? 1_000)))
        )

    const consumers = options.wakeSources.map((source): DurableConsumerOptions => {
      const { wakes: _wakes, ...consumer } = source
      return { ...consumer, handle: handle(source) }
    })
    for (const consumer of consumers) yield* ensureDurableConsumer(consumer)
    for (const consumer of consumers) yield* Effect.forkScoped(runDurableConsumer(consumer))

    const { reconcile } = options
    if (reconcile !== undefined) {
      const once = Effect.provideContext(reconcile.candidates, context).pipe(
        Effect.flatMap((candidates) => rounds.reconcile(candidates, reconcile.trigger, reconcile.concurrency)),
        Effect.catchCause((cause) => Effect.logWarning(`${options.name}: reconcile failed; tried again next time`, cause))
      )
      const repeated = once.pipe(Effect.repeat(Schedule.spaced(reconcile.everyMs)))
      const firstAfterMs = reconcile.firstAfterMs ?? 0
      yield* Effect.forkScoped(firstAfterMs > 0 ? Effect.delay(repeated, firstAfterMs) : repeated)
    }
  })

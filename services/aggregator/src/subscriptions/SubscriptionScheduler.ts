// Extension: the subscription checks' process manager: follows every subscription in memory and runs each due check once.
import { Clock, Config, Effect, Layer, Queue, Schedule, Schema } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { evolveSubscription, isCheckDue, type SubscriptionState } from "@mds/shared/domain/subscription/SubscriptionState"
import { SUBSCRIPTIONS_STREAM } from "@mds/shared/eventstore/Subjects"
import { followEvents } from "@mds/shared/nats/followEvents"
import { CheckLocks } from "./CheckLocks.ts"
import { runSubscriptionCheck } from "./SubscriptionCheck.ts"

export const SubscriptionSchedulerConfig = Config.all({
  /** How often the followed subscriptions are looked at for checks whose time came (no event announces it). */
  tickMs: secondsAsMs("SUBSCRIPTION_TICK_SECONDS", 15)
})

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(SubscriptionEvent))

/**
 * A durable timer: every aggregator follows MDS_SUBSCRIPTIONS (each subscription's next check time is in its state),
 * looks for due checks when an event arrives (created, check now, resumed) and on a tick, and runs a due check only
 * after taking its lock: one runner per (subscription, due time) across the fleet. A check missed while everything was
 * down is due on start, once: its record moves the next check one interval past the time it ran.
 */
const makeScheduler = Effect.gen(function* () {
  const { tickMs } = yield* SubscriptionSchedulerConfig
  const locks = yield* CheckLocks
  const context = yield* Effect.context<Effect.Services<ReturnType<typeof runSubscriptionCheck>>>()
  const subscriptions = new Map<string, Exclude<SubscriptionState, null>>()
  /** Checks this process runs now, by `subscriptionId@dueAt`: a tick during a check does not ask for its lock again. */
  const running = new Set<string>()
  /** One pending wake-up is enough: a burst of events is looked at once. */
  const wakeUps = yield* Queue.sliding<void>(1)
  const scope = yield* Effect.scope

  // Registered for /v1/health: while it is not following, due checks may be found late (a check itself re-reads its
  // subscription).
  yield* followEvents({
    name: "subscriptions",
    stream: SUBSCRIPTIONS_STREAM.name,
    filterSubject: SUBSCRIPTIONS_STREAM.subjects[0] ?? "mds.subscription.>",
    from: "all",
    decode: decodeEvent,
    onEvent: (event, { subject }) => {
      const state = evolveSubscription(subscriptions.get(subject) ?? null, event)
      if (state === null || state.removed) subscriptions.delete(subject)
      else subscriptions.set(subject, state)
      Queue.offerUnsafe(wakeUps, undefined)
    }
  })

  const runCheck = (projectId: string, subscriptionId: string, dueAt: number) => {
    const key = `${subscriptionId}@${dueAt}`
    if (running.has(key)) return Effect.void
    running.add(key)
    return Effect.gen(function* () {
      if (!(yield* locks.take(subscriptionId, dueAt))) return
      yield* runSubscriptionCheck(projectId, subscriptionId, dueAt)
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("subscription check did not finish; taken again when its lock lapses", { key }, cause)
      ),
      Effect.ensuring(Effect.sync(() => running.delete(key))),
      Effect.provideContext(context),
      Effect.forkIn(scope),
      Effect.asVoid
    )
  }

  const runDue = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    for (const state of subscriptions.values()) {
      if (isCheckDue(state, now)) yield* runCheck(state.projectId, state.subscriptionId, state.nextCheckAt)
    }
  })

  // Woken by the followed events and by the tick.
  yield* Queue.take(wakeUps).pipe(Effect.andThen(runDue), Effect.forever, Effect.forkScoped)
  yield* Effect.sync(() => Queue.offerUnsafe(wakeUps, undefined)).pipe(Effect.repeat(Schedule.spaced(tickMs)), Effect.forkScoped)
  yield* Effect.logInfo("subscription scheduler following", { tickMs })
})

export const SubscriptionScheduler = Layer.effectDiscard(makeScheduler).pipe(Layer.provide(CheckLocks.layer))

// Extension: the subscription checks' process manager: a reactor that runs each due check once, fleet-wide.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Config, Effect, Layer, Option } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { type CheckTrigger, mayBeDue, react } from "@mds/shared/domain/subscription/SubscriptionChecks"
import { currentSubscription } from "@mds/shared/domain/subscription/SubscriptionCommands"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { SUBSCRIPTIONS_STREAM, subscriptionSubject } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { RESOLVE_RPC_TIMEOUT_MS } from "@mds/shared/nats/ResolveRpcClient"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { Done, Over, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { CheckLocks } from "./CheckLocks.ts"
import { runSubscriptionCheck } from "./SubscriptionCheck.ts"

export const SUBSCRIPTION_CHECKS_DURABLE = "aggregator-subscription-checks"

export const SubscriptionCheckerConfig = Config.all({
  /** How often the subscriptions are looked at for checks whose time came (no event announces it). */
  tickMs: secondsAsMs("SUBSCRIPTION_TICK_SECONDS", 15)
})

/**
 * A round may run a check: the playlist's resolve (up to its own limit), then the claims, the batch and the record.
 * A message redelivered past it anyway finds the check's lock taken (or the check recorded) and does nothing.
 */
const CHECK_ACK_WAIT_MS = RESOLVE_RPC_TIMEOUT_MS + 60_000

/** Checks a reconcile runs side by side (each mostly waits for its resolve), as the followed checks ran before. */
const RECONCILE_CONCURRENCY = 4

interface SubscriptionKey {
  readonly projectId: string
  readonly subscriptionId: string
}

/** `mds.subscription.<projectId>.<subscriptionId>` */
const keyOfSubject = (subject: string): SubscriptionKey => {
  const [, , projectId = "", subscriptionId = ""] = subject.split(".")
  return { projectId, subscriptionId }
}

/**
 * A reactor (`reactors/Reactor.ts`), the durable timer of docs/events.md: every event of a subscription (created, check
 * now, resumed, checked, failed, ...) wakes it, and a reconcile at start and every SUBSCRIPTION_TICK_SECONDS finds the
 * checks whose time came, which no event announces. A round reads the subscription's one state, reacts
 * (`SubscriptionChecks.ts`) and runs a due check only after taking its lock: one runner per (subscription, due time)
 * across the fleet, since every aggregator reconciles. A check missed while everything was down is due on start, once:
 * its record moves the next check one interval past the time it ran.
 */
const makeSubscriptionChecker = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const store = yield* EventStore
  const readModel = yield* SubscriptionReadModel
  const locks = yield* CheckLocks
  const { tickMs } = yield* SubscriptionCheckerConfig

  /** Not due yet is Done, not Later: the reconcile finds the check when its time came (see docs/architecture.md). */
  const round = Effect.fn("SubscriptionChecker.round")(function* (
    { projectId, subscriptionId }: SubscriptionKey,
    trigger: CheckTrigger["_tag"]
  ) {
    const now = yield* Clock.currentTimeMillis
    const { state } = yield* currentSubscription(projectId, subscriptionId)
    for (const reaction of react(state, { _tag: trigger, now })) {
      switch (reaction._tag) {
        case "StopChecking":
          return Over
        case "RunCheck":
          // Not taken: another runner has the check (or had it: its lock lapses, then a reconcile runs it again).
          if (yield* locks.take(subscriptionId, reaction.dueAt)) yield* runSubscriptionCheck(projectId, subscriptionId, reaction.dueAt)
          break
      }
    }
    return Done
  })

  const subscriptionEvents: WakeSource<SubscriptionKey, CheckTrigger["_tag"]> = {
    stream: SUBSCRIPTIONS_STREAM.name,
    durable: SUBSCRIPTION_CHECKS_DURABLE,
    filterSubject: SUBSCRIPTIONS_STREAM.subjects[0] ?? "mds.subscription.>",
    lanes: 4,
    ackWaitMs: CHECK_ACK_WAIT_MS,
    // Events from before this consumer existed are the start's reconcile's.
    deliverPolicy: DeliverPolicy.New,
    // The round decides from the state, not from the event: any event of the subscription wakes it.
    wakes: (msg) => Effect.succeed([{ key: keyOfSubject(msg.subject), trigger: "SubscriptionRecorded" as const }])
  }

  /**
   * The subscriptions whose check may be due: the list read model's document is the snapshot that tells, unless it
   * is missing or behind the subject's last event (then the round reads the state). Removed ones are left out.
   */
  const candidates = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const info = yield* Effect.tryPromise(() =>
      jsm.streams.info(SUBSCRIPTIONS_STREAM.name, { subjects_filter: SUBSCRIPTIONS_STREAM.subjects[0] ?? "mds.subscription.>" })
    )
    const keys = Object.keys(info.state.subjects ?? {}).map(keyOfSubject)
    const due = yield* Effect.forEach(
      keys,
      ({ projectId, subscriptionId }) =>
        Effect.gen(function* () {
          const last = yield* store.readLast(SubscriptionEvent, subscriptionSubject(projectId, subscriptionId))
          const snapshot = yield* readModel.get(projectId, subscriptionId).pipe(
            Effect.map(Option.getOrNull),
            Effect.orElseSucceed(() => null)
          )
          return Option.isSome(last) && mayBeDue(snapshot, last.value.seq, now)
        }),
      { concurrency: 8 }
    )
    return keys.filter((_, i) => due[i] === true)
  })

  yield* runReactor({
    name: "subscription checks",
    keyOf: ({ projectId, subscriptionId }: SubscriptionKey) => subscriptionSubject(projectId, subscriptionId),
    round,
    wakeSources: [subscriptionEvents],
    reconcile: { everyMs: tickMs, candidates, trigger: "Reconcile", concurrency: RECONCILE_CONCURRENCY }
  })
  yield* Effect.logInfo("subscription checks consuming", { tickMs })
})

export const SubscriptionChecker = Layer.effectDiscard(makeSubscriptionChecker).pipe(Layer.provide(CheckLocks.layer))

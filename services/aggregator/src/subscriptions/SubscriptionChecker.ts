// Extension: the subscription checks' process manager: a reactor that records what became of each subscription's
// entries and runs each due check once, fleet-wide, taking the projects in turn.
import { Clock, Config, Effect, Layer, Option } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { type CheckTrigger, mayHaveWork, react } from "@mds/shared/domain/subscription/SubscriptionChecks"
import { currentSubscription } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SUBSCRIPTIONS_STREAM, subscriptionSubject } from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { listSubjects } from "@mds/shared/nats/SubjectListing"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import type { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import type { Lifetimes } from "@mds/shared/config/Lifetimes"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { DeliverPolicy } from "@nats-io/jetstream"
import { Done, Over, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { CheckLocks } from "./CheckLocks.ts"
import { settleEntries } from "./EntrySettlement.ts"
import { FairCheckQueue, type QueuedCheck } from "./FairCheckQueue.ts"
import { FeedResolver } from "./FeedResolver.ts"
import { runSubscriptionCheck } from "./SubscriptionCheck.ts"

export const SUBSCRIPTION_CHECKS_DURABLE = "aggregator-subscription-checks"

export const SubscriptionCheckerConfig = Config.all({
  /** How often the live subscriptions are looked at for checks whose time came and entries whose jobs ended. */
  tickMs: secondsAsMs("SUBSCRIPTION_TICK_SECONDS", 15),
  /** Checks one aggregator runs at once, at most one of each project (FairCheckQueue). */
  concurrency: Config.Int("SUBSCRIPTION_CHECKS_CONCURRENCY").pipe(Config.withDefault(4))
})

interface SubscriptionKey {
  readonly projectId: string
  readonly subscriptionId: string
}

/**
 * A reactor (`reactors/Reactor.ts`), the durable timer of docs/events.md: every event of a subscription wakes it, and a
 * reconcile at start and every SUBSCRIPTION_TICK_SECONDS over the live subscriptions finds the checks whose time came
 * and the entries whose jobs may have ended, which no subscription event announces. A round reads the subscription's
 * one state and reacts (`SubscriptionChecks.ts`): it records what became of the entries in flight, and hands a due
 * check to the fair queue, which runs it once a check slot is free and the project has no other check running, after
 * taking the check's lock (one runner per subscription and due time across the fleet). A round never waits for a
 * check, so a slow feed holds neither a consumer lane nor another project's check.
 */
const makeSubscriptionChecker = Effect.gen(function* () {
  const readModel = yield* SubscriptionReadModel
  const store = yield* EventStore
  const nats = yield* NatsClient
  const locks = yield* CheckLocks
  const { tickMs, concurrency } = yield* SubscriptionCheckerConfig
  const context = yield* Effect.context<
    EventStore | Lifetimes | NatsClient | ProjectQuotaReader | SubscriptionStates | JobStates | FeedResolver
  >()
  const scope = yield* Effect.scope
  const queue = new FairCheckQueue(Math.max(1, concurrency))

  const runOne = (check: QueuedCheck) =>
    Effect.gen(function* () {
      // Not taken: another runner has the check (or had it: its lock lapses, then a reconcile runs it again).
      if (!(yield* locks.take(check.subscriptionId, check.dueAt))) return
      yield* runSubscriptionCheck(check.projectId, check.subscriptionId, check.dueAt)
    }).pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("subscription check failed; the reconcile runs it again", { subscriptionId: check.subscriptionId }, cause)
      )
    )

  /** Starts what the queue lets start; each check, once over, starts the next. */
  const pump: Effect.Effect<void> = Effect.suspend(() =>
    Effect.forEach(
      queue.take(),
      (check) =>
        Effect.forkIn(
          runOne(check).pipe(
            Effect.provideContext(context),
            Effect.ensuring(
              Effect.suspend(() =>
                Effect.andThen(
                  Effect.sync(() => queue.done(check)),
                  pump
                )
              )
            )
          ),
          scope
        ),
      { discard: true }
    )
  )

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
        case "Settle":
          yield* settleEntries(projectId, subscriptionId)
          break
        case "RunCheck":
          if (queue.submit({ projectId, subscriptionId, dueAt: reaction.dueAt })) yield* pump
          break
      }
    }
    return Done
  })

  const subscriptionEvents: WakeSource<SubscriptionKey, CheckTrigger["_tag"]> = {
    stream: SUBSCRIPTIONS_STREAM.name,
    durable: SUBSCRIPTION_CHECKS_DURABLE,
    filterSubject: subscriptionSubject.all,
    lanes: 4,
    // A round reads and appends; the checks run beside it.
    ackWaitMs: 30_000,
    // Events from before this consumer existed are the start's reconcile's.
    deliverPolicy: DeliverPolicy.New,
    // The round decides from the state, not from the event: any event of the subscription wakes it.
    wakes: (msg) =>
      Option.match(subscriptionSubject.parse(msg.subject), {
        onNone: () => Effect.as(stepOverSubject("subscription checks", msg.subject), []),
        onSome: (key) => Effect.succeed([{ key, trigger: "SubscriptionRecorded" as const }])
      })
  }

  /**
   * The live subscriptions (the read model's rows, not every subscription ever created) whose check is due or whose
   * entries are in flight. A row a moment behind its subject only delays: the event that changed it woke its round.
   */
  const liveCandidates = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const live = yield* readModel.listLive()
    return live
      .filter((row) => mayHaveWork({ ...row, removed: false }, now))
      .map(({ projectId, subscriptionId }) => ({ projectId, subscriptionId }))
  })

  /**
   * At start, once, every subscription in the stream whose row is missing or behind its subject besides: events written
   * while no aggregator ran (a check now, a resume) may not be folded yet, and no durable wake-up names them if this
   * aggregator's consumer is new.
   */
  const startCandidates = Effect.gen(function* () {
    const live = yield* readModel.listLive()
    const folded = new Map(live.map((row) => [subscriptionSubject(row.projectId, row.subscriptionId), row.lastSeq]))
    const keys = yield* listSubjects(subscriptionSubject).pipe(Effect.provideService(NatsClient, nats))
    const isBehind = yield* Effect.forEach(
      keys,
      (key) => {
        const seq = folded.get(subscriptionSubject(key.projectId, key.subscriptionId))
        if (seq === undefined) return Effect.succeed([key, true] as const)
        return Effect.map(
          store.readLast(SubscriptionEvent, subscriptionSubject(key.projectId, key.subscriptionId)),
          (last) => [key, Option.isSome(last) && last.value.seq > seq] as const
        )
      },
      { concurrency: 8 }
    )
    const behind = isBehind.flatMap(([key, late]) => (late ? [key] : []))
    const fromLive = yield* liveCandidates
    const listed = new Set(fromLive.map(({ projectId, subscriptionId }) => subscriptionSubject(projectId, subscriptionId)))
    return [...fromLive, ...behind.filter((key) => !listed.has(subscriptionSubject(key.projectId, key.subscriptionId)))]
  })

  let started = false
  const candidates = Effect.suspend(() =>
    started
      ? liveCandidates
      : Effect.tap(startCandidates, () =>
          Effect.sync(() => {
            started = true
          })
        )
  )

  yield* runReactor({
    name: "subscription checks",
    keyOf: ({ projectId, subscriptionId }: SubscriptionKey) => subscriptionSubject(projectId, subscriptionId),
    round,
    wakeSources: [subscriptionEvents],
    reconcile: { everyMs: tickMs, candidates, trigger: "Reconcile", concurrency: 4 }
  })
  yield* Effect.logInfo("subscription checks consuming", { tickMs, concurrency })
})

export const SubscriptionChecker = Layer.effectDiscard(makeSubscriptionChecker).pipe(
  Layer.provide(Layer.mergeAll(CheckLocks.layer, JobStates.layer, ProjectQuotaReader.layer, FeedResolver.layer))
)

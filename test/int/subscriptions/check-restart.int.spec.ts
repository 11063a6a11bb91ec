// A subscription check whose process died after the check's batch was created and before its record, run again by a
// restarted aggregator, on a real nats-server and extractor (pinned yt-dlp): the rerun follows the recorded plan, each
// entry is queued once, in the check's one batch, the check is recorded once, and an entry that appeared in between is
// left to the next check, not lost.
import { Effect, Exit, Layer, type ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { subscriptionSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { checkBatchId, runSubscriptionCheck } from "../../../services/aggregator/src/subscriptions/SubscriptionCheck.ts"
import { eventually } from "../../support/Eventually.ts"
import type { MediaServer } from "../../support/MediaServer.ts"
import {
  lastCheckOf,
  outcomes,
  queuedTitlesOf,
  startSubscriptionStack,
  type SubscriptionStack,
  subscriptionEventsOf,
  type CheckHostNeeds,
  startCheckHost
} from "./SubscriptionStack.ts"
import { createSubscription } from "../../support/Subscriptions.ts"

type Services = CheckHostNeeds

let stack: SubscriptionStack
let media: MediaServer
/** The process whose checks are run by hand here (no aggregator): the one that dies in the middle of a check. */
let host: ManagedRuntime.ManagedRuntime<Services, never>

beforeAll(async () => {
  stack = await startSubscriptionStack({ name: "mds-subscription-restart-" })
  media = stack.media
  host = await startCheckHost(stack)
}, 120_000)

afterAll(async () => {
  await host?.dispose()
  await stack?.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => host.runPromise(effect)

/**
 * The event store of a process that dies as it records a check: its plan is recorded, its claims and batch made, and
 * the append of its SubscriptionChecked is its end.
 */
const diesAtRecord = (projectId: string, subscriptionId: string) =>
  Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const store = yield* EventStore
      const subject = subscriptionSubject(projectId, subscriptionId)
      const died = Effect.die(new Error("the process died before recording the check"))
      const records = (to: string, events: ReadonlyArray<unknown>) =>
        to === subject && events.some((event) => (event as { readonly _tag?: string })._tag === "SubscriptionChecked")
      return EventStore.of({
        ...store,
        append: (codec, to, event, options) => (records(to, [event]) ? died : store.append(codec, to, event, options)),
        appendBatch: (codec, to, events, options) =>
          records(
            to,
            events.map((batched) => batched.event)
          )
            ? died
            : store.appendBatch(codec, to, events, options)
      })
    })
  )

const nextCheckAt = async (projectId: string, subscriptionId: string) => {
  const { state } = await run(currentSubscription(projectId, subscriptionId))
  if (state === null) throw new Error(`no subscription ${subscriptionId}`)
  return state.nextCheckAt
}

/**
 * Subscribes to the feed (one episode: the first check's baseline), asks for a check, lets the feed grow to `episodes`
 * and runs the check in a process that dies at its record: the check's batch exists, its record does not.
 */
const checkThatDied = async (projectId: string, feed: string, episodes: number) => {
  media.setFeed(feed, { episodes: 1 })
  const subscriptionId = await run(createSubscription(projectId, media.growingFeed(feed)))
  expect(await run(runSubscriptionCheck(projectId, subscriptionId, await nextCheckAt(projectId, subscriptionId)))).toBe("checked")
  await run(subscriptionCommands(projectId, subscriptionId)({ _tag: "CheckNow", subscriptionId, now: Date.now() }))
  const dueAt = await nextCheckAt(projectId, subscriptionId)
  media.setFeed(feed, { episodes })
  const died = await host.runPromiseExit(
    runSubscriptionCheck(projectId, subscriptionId, dueAt).pipe(Effect.provide(diesAtRecord(projectId, subscriptionId)))
  )
  expect(Exit.isFailure(died)).toBe(true)
  const { state: batch } = await run(currentBatch(projectId, checkBatchId(subscriptionId, dueAt)))
  expect(batch.entries.map((entry) => entry.title)).toEqual(["Episode 3", "Episode 2"])
  expect(outcomes(await run(subscriptionEventsOf(projectId, subscriptionId)))).toHaveLength(1)
  return subscriptionId
}

/**
 * Starts an aggregator, as after the restart: the reconcile at its start finds the interrupted check still due and runs it (the dead
 * process took no lock here; after a real death the check waits for its lock to lapse). Disposing it is the caller's.
 */
const restart = () => stack.startAggregator(AggregatorLayer)

/** Waits until the subscription has `count` check outcomes and returns its events. */
const afterChecks = (projectId: string, subscriptionId: string, count: number) =>
  eventually(
    () => run(subscriptionEventsOf(projectId, subscriptionId)),
    (events) => outcomes(events).length >= count,
    `check ${count} of ${subscriptionId}`,
    60_000
  )

/** As POST /v1/subscriptions/{id}/check does, with the restarted aggregator running; waits for the check's outcome. */
const checkNow = async (projectId: string, subscriptionId: string) => {
  const before = outcomes(await run(subscriptionEventsOf(projectId, subscriptionId))).length
  await run(subscriptionCommands(projectId, subscriptionId)({ _tag: "CheckNow", subscriptionId, now: Date.now() }))
  return afterChecks(projectId, subscriptionId, before + 1)
}

const queuedEvents = (events: ReadonlyArray<{ readonly _tag: string }>) => events.filter((e) => e._tag === "SubscriptionEntriesQueued")

describe("a subscription check interrupted between its batch and its record", () => {
  it("is recorded once when run again after a restart: the batch's entries, queued once", async () => {
    const projectId = newId("prj")
    const subscriptionId = await checkThatDied(projectId, "restart-same", 3)
    const aggregator = await restart()
    try {
      const rerun = await afterChecks(projectId, subscriptionId, 2)
      expect(lastCheckOf(rerun)).toEqual({ found: 3, new: 2, filtered: 0, queued: 2 })
      expect(queuedEvents(rerun)).toHaveLength(1)
      expect(await run(queuedTitlesOf(projectId, rerun))).toEqual(["Episode 3", "Episode 2"])

      const next = await checkNow(projectId, subscriptionId)
      expect(outcomes(next)).toHaveLength(3)
      expect(lastCheckOf(next)).toEqual({ found: 3, new: 0, filtered: 0, queued: 0 })
      expect(await run(queuedTitlesOf(projectId, next))).toEqual(["Episode 3", "Episode 2"])
    } finally {
      await aggregator.dispose()
    }
  }, 120_000)

  it("records only its batch's entries when the feed grew before the rerun; the next check queues the new entry, once", async () => {
    const projectId = newId("prj")
    const subscriptionId = await checkThatDied(projectId, "restart-grown", 3)
    media.setFeed("restart-grown", { episodes: 4 })
    const aggregator = await restart()
    try {
      const rerun = await afterChecks(projectId, subscriptionId, 2)
      // The rerun follows the plan the first run recorded (the feed as it was then): Episode 4 is in no plan, unseen.
      expect(lastCheckOf(rerun)).toEqual({ found: 3, new: 2, filtered: 0, queued: 2 })
      expect(await run(queuedTitlesOf(projectId, rerun))).toEqual(["Episode 3", "Episode 2"])

      const next = await checkNow(projectId, subscriptionId)
      expect(outcomes(next)).toHaveLength(3)
      expect(lastCheckOf(next)).toEqual({ found: 4, new: 1, filtered: 0, queued: 1 })
      expect(queuedEvents(next)).toHaveLength(2)
      expect(await run(queuedTitlesOf(projectId, next))).toEqual(["Episode 3", "Episode 2", "Episode 4"])
    } finally {
      await aggregator.dispose()
    }
  }, 120_000)
})

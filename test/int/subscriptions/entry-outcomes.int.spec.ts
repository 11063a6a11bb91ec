// What becomes of the entries a subscription's check found, on a real nats-server and extractor (pinned yt-dlp), checks
// run by hand (and by an aggregator where the feeder must act): an entry is done when it is downloaded, given up or
// filtered, never when it is merely queued; a removal or pause recorded while a check runs stops its batch; and no
// interleaving of two runs of one check, or of a run that died, leaves an entry claimed and in no batch.
import { Effect, Exit, Layer, type ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { projectCommands } from "@mds/shared/application/account/AccountCommands"
import { archiveClaimOf } from "@mds/shared/application/archive/ArchiveCommands"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { newId } from "@mds/shared/ids/Ids"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { checkBatchId, runSubscriptionCheck } from "../../../services/aggregator/src/subscriptions/SubscriptionCheck.ts"
import { eventually } from "../../support/Eventually.ts"
import type { MediaServer } from "../../support/MediaServer.ts"
import { createSubscription } from "../../support/Subscriptions.ts"
import {
  type CheckHostNeeds,
  startCheckHost,
  outcomes,
  queuedTitlesOf,
  startSubscriptionStack,
  type SubscriptionStack,
  subscriptionEventsOf
} from "./SubscriptionStack.ts"

type Services = CheckHostNeeds

/** A job's lifetime here: a batch whose entries the project's quota holds back ends within it. */
const JOB_TTL_SECONDS = 6

let stack: SubscriptionStack
let media: MediaServer
/** The process whose checks are run by hand (no aggregator runs unless a test starts one). */
let host: ManagedRuntime.ManagedRuntime<Services, never>

beforeAll(async () => {
  stack = await startSubscriptionStack({
    name: "mds-subscription-outcomes-",
    env: { API_JOB_TTL_SECONDS: String(JOB_TTL_SECONDS), BATCH_RECONCILE_INTERVAL_SECONDS: "1", EXPIRY_SWEEP_INTERVAL_SECONDS: "1" }
  })
  media = stack.media
  host = await startCheckHost(stack)
}, 120_000)

afterAll(async () => {
  await host?.dispose()
  await stack?.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => host.runPromise(effect)

const episodeUrl = (feed: string, episode: number) => `${media.origin}/media/tone.m4a?feed=${feed}&episode=${episode}`

const nextCheckAt = async (projectId: string, subscriptionId: string) => {
  const { state } = await run(currentSubscription(projectId, subscriptionId))
  if (state === null) throw new Error(`no subscription ${subscriptionId}`)
  return state.nextCheckAt
}

const eventsOf = (projectId: string, subscriptionId: string) => run(subscriptionEventsOf(projectId, subscriptionId))

const stateOf = async (projectId: string, subscriptionId: string) => {
  const { state } = await run(currentSubscription(projectId, subscriptionId))
  if (state === null) throw new Error(`no subscription ${subscriptionId}`)
  return state
}

/** Runs the subscription's due check by hand, as the reactor would once it holds the check's lock. */
const checkByHand = async (projectId: string, subscriptionId: string) =>
  run(runSubscriptionCheck(projectId, subscriptionId, await nextCheckAt(projectId, subscriptionId)))

const checkNow = (projectId: string, subscriptionId: string) =>
  run(subscriptionCommands(projectId, subscriptionId)({ _tag: "CheckNow", subscriptionId, now: Date.now() }))

/** A gate in a run's event store: its appends to the project's batches wait (announcing it) until the gate opens. */
const gateAtBatch = (projectId: string) => {
  let arrive = () => {}
  let open = () => {}
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve
  })
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  const layer = Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const store = yield* EventStore
      const gated = (to: string) => to.startsWith(`mds.batch.${projectId}.`)
      const wait = Effect.promise(async () => {
        arrive()
        await opened
      })
      return EventStore.of({
        ...store,
        append: (codec, to, event, options) =>
          gated(to) ? Effect.andThen(wait, store.append(codec, to, event, options)) : store.append(codec, to, event, options),
        appendBatch: (codec, to, events, options) =>
          gated(to) ? Effect.andThen(wait, store.appendBatch(codec, to, events, options)) : store.appendBatch(codec, to, events, options)
      })
    })
  )
  return { arrived, open, layer }
}

/** The event store of a process that dies as it creates a batch of the project: its claims are made, its batch is not. */
const diesAtBatch = (projectId: string) =>
  Layer.effect(
    EventStore,
    Effect.gen(function* () {
      const store = yield* EventStore
      const died = Effect.die(new Error("the process died before creating the check's batch"))
      const dies = (to: string) => to.startsWith(`mds.batch.${projectId}.`)
      return EventStore.of({
        ...store,
        append: (codec, to, event, options) => (dies(to) ? died : store.append(codec, to, event, options)),
        appendBatch: (codec, to, events, options) => (dies(to) ? died : store.appendBatch(codec, to, events, options))
      })
    })
  )

/** Subscribes to a feed of `episodes` episodes (the first check, by hand, is its baseline) and asks for a check now. */
const subscribedAndDue = async (projectId: string, feed: string, episodes: number) => {
  media.setFeed(feed, { episodes })
  const subscriptionId = await run(createSubscription(projectId, media.growingFeed(feed)))
  expect(await checkByHand(projectId, subscriptionId)).toBe("checked")
  await checkNow(projectId, subscriptionId)
  return { subscriptionId, dueAt: await nextCheckAt(projectId, subscriptionId) }
}

/** The titles queued by every check of the subscription, from its batches. */
const queuedTitles = async (projectId: string, subscriptionId: string) =>
  run(queuedTitlesOf(projectId, await eventsOf(projectId, subscriptionId)))

/**
 * A subscription (backfill 2) of a feed of 3 episodes whose check is under way: the feed answers only once `change`
 * is recorded, so the check finishes after it.
 */
const checkMeetingChange = async (feed: string, change: "RemoveSubscription" | "PauseSubscription") => {
  const projectId = newId("prj")
  media.setFeed(feed, { episodes: 3, stalled: true })
  const subscriptionId = await run(createSubscription(projectId, media.growingFeed(feed), { backfill: 2 }))
  const dueAt = await nextCheckAt(projectId, subscriptionId)
  const check = run(runSubscriptionCheck(projectId, subscriptionId, dueAt))
  await eventually(
    async () => media.requestCount(media.growingFeed(feed)),
    (n) => n >= 1,
    "the check's request for the feed"
  )
  await run(subscriptionCommands(projectId, subscriptionId)({ _tag: change, subscriptionId, now: Date.now() }))
  media.setFeed(feed, { stalled: false })
  await check
  return { projectId, subscriptionId, dueAt }
}

describe("a removal or a pause recorded while a check waits for its feed (defect 7)", () => {
  it("removed: the check creates no batch and claims nothing", async () => {
    const feed = "outcome-removed"
    const { projectId, subscriptionId, dueAt } = await checkMeetingChange(feed, "RemoveSubscription")
    const { state: batch } = await run(currentBatch(projectId, checkBatchId(subscriptionId, dueAt)))
    expect(batch.status).toBe("none")
    expect(await run(archiveClaimOf(projectId, `url ${episodeUrl(feed, 3)}`))).toBeNull()
  }, 60_000)

  it("paused: the check queues nothing until the subscription is resumed, then its entries once", async () => {
    const feed = "outcome-paused"
    const { projectId, subscriptionId, dueAt } = await checkMeetingChange(feed, "PauseSubscription")
    expect((await run(currentBatch(projectId, checkBatchId(subscriptionId, dueAt)))).state.status).toBe("none")
    expect(await queuedTitles(projectId, subscriptionId)).toEqual([])

    await run(subscriptionCommands(projectId, subscriptionId)({ _tag: "ResumeSubscription", subscriptionId, now: Date.now() }))
    expect(await checkByHand(projectId, subscriptionId)).toBe("checked")
    expect(await queuedTitles(projectId, subscriptionId)).toEqual(["Episode 3", "Episode 2"])
  }, 60_000)
})

describe("runs of one check that meet or die (defect 8)", () => {
  it("a run that died between its claims and its batch, whose feed then dropped an entry it claimed: the entry is still queued", async () => {
    const projectId = newId("prj")
    const feed = "outcome-died"
    const { subscriptionId, dueAt } = await subscribedAndDue(projectId, feed, 1)
    media.setFeed(feed, { episodes: 3 })
    const died = await host.runPromiseExit(
      runSubscriptionCheck(projectId, subscriptionId, dueAt).pipe(Effect.provide(diesAtBatch(projectId)))
    )
    expect(Exit.isFailure(died)).toBe(true)
    // The feed drops its newest entry before the check runs again, and lists it again later.
    media.setFeed(feed, { episodes: 2 })
    expect(await checkByHand(projectId, subscriptionId)).toBe("checked")
    media.setFeed(feed, { episodes: 3 })
    await checkNow(projectId, subscriptionId)
    expect(await checkByHand(projectId, subscriptionId)).toBe("checked")
    expect([...(await queuedTitles(projectId, subscriptionId))].sort()).toEqual(["Episode 2", "Episode 3"])
  }, 60_000)

  it("two runs of one check at once (a lock that lapsed), the feed growing in between: the newer entry is queued by a later check", async () => {
    const projectId = newId("prj")
    const feed = "outcome-twice"
    const { subscriptionId, dueAt } = await subscribedAndDue(projectId, feed, 1)
    media.setFeed(feed, { episodes: 2 })
    const first = gateAtBatch(projectId)
    const firstRun = host.runPromise(runSubscriptionCheck(projectId, subscriptionId, dueAt).pipe(Effect.provide(first.layer)))
    await first.arrived
    media.setFeed(feed, { episodes: 3 })
    const second = gateAtBatch(projectId)
    const secondRun = host.runPromise(runSubscriptionCheck(projectId, subscriptionId, dueAt).pipe(Effect.provide(second.layer)))
    await second.arrived
    first.open()
    await firstRun
    second.open()
    await secondRun
    expect(outcomes(await eventsOf(projectId, subscriptionId))).toHaveLength(2)

    await checkNow(projectId, subscriptionId)
    expect(await checkByHand(projectId, subscriptionId)).toBe("checked")
    expect(await queuedTitles(projectId, subscriptionId)).toEqual(["Episode 2", "Episode 3"])
  }, 60_000)
})

describe("entries held back by the project's quota (defect 6)", () => {
  it("wait (and say so) while the quota is used up, are queued once it is raised and a check runs, and a failed try is queued again once, then given up with its reason", async () => {
    const projectId = newId("prj")
    const feed = "outcome-quota"
    const projects = projectCommands(projectId)
    await run(projects({ _tag: "CreateProject", projectId, name: "held", owner: null, now: Date.now() }))
    await run(projects({ _tag: "SetProjectQuota", projectId, quotas: { jobsPerDay: 0 }, now: Date.now() }))
    const aggregator = await stack.startAggregator(AggregatorLayer)
    try {
      media.setFeed(feed, { episodes: 3 })
      const subscriptionId = await run(createSubscription(projectId, media.growingFeed(feed), { backfill: 2 }))
      const first = await eventually(
        () => eventsOf(projectId, subscriptionId),
        (events) => outcomes(events).length >= 1,
        "the first check",
        30_000
      )
      const firstAt = outcomes(first)[0]!.at
      // Held back, and the subscription says so: waiting for the quota, in no batch.
      const held = await stateOf(projectId, subscriptionId)
      expect(held.entries.map((entry) => [entry.title, entry.batchId, entry.waitingFor?.code])).toEqual([
        ["Episode 3", null, "quota_exceeded"],
        ["Episode 2", null, "quota_exceeded"]
      ])
      // What this test is about: the job lifetime passing while the quota holds (a batch made then has ended).
      await eventually(
        async () => Date.now(),
        (now) => now > firstAt + (JOB_TTL_SECONDS + 2) * 1000,
        "the job lifetime to pass",
        30_000,
        500
      )
      await run(projects({ _tag: "SetProjectQuota", projectId, quotas: { jobsPerDay: "unlimited" }, now: Date.now() }))

      // Checked again (the aggregators remember a project's quotas for a few seconds) until the entries have jobs.
      const withJobs = async () => {
        const events = await eventsOf(projectId, subscriptionId)
        const titles: Array<string> = []
        for (const event of events) {
          if (event._tag !== "SubscriptionEntriesQueued") continue
          for (const entry of event.entries) {
            const job = await run(
              Effect.flatMap(EventStore, (store) =>
                store.readSubject(JobEvent, jobSubject(projectId, entryJobId(event.batchId, entry.entryId)))
              )
            )
            if (job.length > 0) titles.push(entry.title)
          }
        }
        return { checks: outcomes(events).length, titles }
      }
      let asked = 1
      const queued = await eventually(
        async () => {
          const now = await withJobs()
          if (now.titles.length < 2 && now.checks >= asked) {
            await checkNow(projectId, subscriptionId)
            asked = now.checks + 1
          }
          return now
        },
        (now) => now.titles.length >= 2,
        "the held entries' jobs",
        40_000,
        500
      )
      expect([...queued.titles].sort()).toEqual(["Episode 2", "Episode 3"])

      // No worker runs here: each job expires (a retryable failure). The next check queues each entry again, once;
      // when that job expires too, the entry is given up with the reason, and no check queues it a third time.
      let checks = 0
      const gaveUp = await eventually(
        async () => {
          const events = await eventsOf(projectId, subscriptionId)
          if (outcomes(events).length > checks) {
            checks = outcomes(events).length
            await checkNow(projectId, subscriptionId)
          }
          return stateOf(projectId, subscriptionId)
        },
        (state) => state.givenUp === 2,
        "both entries given up",
        60_000,
        500
      )
      expect(gaveUp.entries).toEqual([])
      expect(gaveUp.lastGivenUp.map((entry) => [entry.title, entry.reason.code]).sort()).toEqual([
        ["Episode 2", "job_expired"],
        ["Episode 3", "job_expired"]
      ])
      const batches = (await eventsOf(projectId, subscriptionId)).filter((event) => event._tag === "SubscriptionEntriesQueued")
      const triesOf = (title: string) => batches.filter((event) => event.entries.some((entry) => entry.title === title)).length
      expect([triesOf("Episode 3"), triesOf("Episode 2")]).toEqual([2, 2])
    } finally {
      await aggregator.dispose()
    }
  }, 120_000)
})

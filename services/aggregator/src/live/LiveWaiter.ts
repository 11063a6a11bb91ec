// Extension: the live-wait reactor: wakes each scheduled job when its next probe is due, probes, takes a slot once the
// stream began, gives up when the wait ran out. Its timers are durable: the schedule events' messages, redelivered.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Config, Effect, Layer } from "effect"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { type LiveWaitTrigger, plansWakeUp } from "@mds/shared/domain/job/JobSchedule"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { jobEventWakes, jobsWhoseLatestEvent } from "../reactors/JobEventWakes.ts"
import { runReactor } from "../reactors/Reactor.ts"
import { LiveProbe } from "./LiveProbe.ts"
import { type LiveJobKey, makeLiveWaitRound } from "./LiveWaitRound.ts"

export const LIVE_WAIT_DURABLE = "aggregator-live-wait"

export const LiveWaiterConfig = Config.all({
  /**
   * How often every scheduled job is looked at again, for what a lost wake-up hid (also done once at start): a probe
   * that came due meanwhile is made then, so this bounds how late a lost wake-up makes it.
   */
  reconcileMs: secondsAsMs("LIVE_WAIT_RECONCILE_SECONDS", 60)
})

/**
 * A reactor (`reactors/Reactor.ts`) on the durable timer of docs/events.md: every JobScheduled and JobLiveProbed wakes
 * its job's round, which answers "later" until the event's due time, so JetStream redelivers the message then (across
 * restarts and failovers: the message stays unacknowledged on the durable consumer, which starts from the stream's
 * first message when it is made, so schedules recorded before it are timed too). A message whose event is no longer
 * the job's latest is acknowledged: the later event's message carries the timer. A reconcile at start and every
 * LIVE_WAIT_RECONCILE_SECONDS runs a round for each job whose latest event is one of these.
 */
const makeLiveWaiter = Effect.gen(function* () {
  const { reconcileMs } = yield* LiveWaiterConfig
  const round = yield* makeLiveWaitRound

  const scheduleEvents = jobEventWakes({
    name: "live wait",
    durable: LIVE_WAIT_DURABLE,
    // A round may resolve the media (up to RESOLVE_TIMEOUT_SECONDS) before it records the probe.
    ackWaitMs: 120_000,
    // From the stream's start when the consumer is first made: a schedule recorded before it existed keeps its timer
    // (the reconcile cannot: a round it runs before the due time has no message to come back with). Only schedule
    // events wake a round, and one that is not its job's latest is acknowledged at once.
    deliverPolicy: DeliverPolicy.All,
    wakesOn: plansWakeUp,
    trigger: "JobScheduleRecorded" as LiveWaitTrigger["_tag"]
  })
  // Jobs whose latest event is a schedule or a probe: the scheduled ones still waiting.
  const candidates = jobsWhoseLatestEvent(plansWakeUp)

  yield* runReactor({
    name: "live wait",
    keyOf: ({ projectId, jobId }: LiveJobKey) => jobSubject(projectId, jobId),
    round,
    wakeSources: [scheduleEvents],
    reconcile: { everyMs: reconcileMs, candidates, trigger: "Reconcile", concurrency: 4 }
  })
  yield* Effect.logInfo("live wait consuming", { reconcileMs })
})

export const LiveWaiter = Layer.effectDiscard(makeLiveWaiter).pipe(
  Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer, LiveProbe.layer, LiveWait.layer))
)

// What can happen in the lifecycle model, one step at a time: clients, the operator, workers, NATS, reactors and the
// clock. Steps name what they act on by position among what exists when they run (modulo its count), so any generated
// sequence applies and shrinks well; a step with nothing to act on does nothing.
import fc from "fast-check"
import type { DestinationMode } from "./ModelDestination.ts"
import type { SubscriptionChange } from "./Subscriptions.ts"

/** How a run's download ends once the model lets it end. */
export type RunOutcome =
  | { readonly _tag: "Complete"; readonly bytes: number }
  | { readonly _tag: "FailRetryable" }
  | { readonly _tag: "FailForGood" }
  /** Extension: yt-dlp says the stream or premiere has not begun: the job waits for it (or fails, if it waited once). */
  | { readonly _tag: "NotBegun"; readonly startsInMs: number | null }
  /** The run's infrastructure failed (the worker hands the message back, nak). */
  | { readonly _tag: "Infrastructure" }

export type Action =
  // Clients of a project, through a gateway.
  /** `destination`: the download names a destination, so its job stores, then waits for its delivery. */
  | { readonly _tag: "Download"; readonly project: number; readonly gateway: number; readonly destination: boolean }
  | { readonly _tag: "Batch"; readonly project: number; readonly entries: number }
  | { readonly _tag: "Cancel"; readonly job: number }
  | { readonly _tag: "CancelBatch"; readonly batch: number }
  | { readonly _tag: "Retry"; readonly job: number; readonly gateway: number }
  /** Extension: a client stops a job's live recording (POST /jobs/{jobId}/stop). */
  | { readonly _tag: "StopRecording"; readonly job: number; readonly gateway: number }
  // Extension: a download of a stream that has not begun (scheduled), and the live-wait reactor's round, whose probe
  // finds the stream live, not yet, or cannot read it (an aggregator restart is a Crash of a round and a later one).
  | { readonly _tag: "DownloadUpcoming"; readonly project: number; readonly gateway: number; readonly startsInMs: number }
  | { readonly _tag: "LiveRound"; readonly job: number; readonly probe: "live" | "not_live" | "failed" }
  // Subscriptions: a client's, the feed's (new entries, failing), the checks reactor's round (settle, run a due check).
  | { readonly _tag: "Subscribe"; readonly project: number; readonly backfill: number }
  | { readonly _tag: "ChangeSubscription"; readonly subscription: number; readonly change: SubscriptionChange }
  | { readonly _tag: "FeedChanges"; readonly subscription: number; readonly grows: number; readonly failing: boolean }
  | { readonly _tag: "SubscriptionRound"; readonly subscription: number }
  // The operator.
  | { readonly _tag: "Quota"; readonly project: number; readonly jobsPerDay: number | null; readonly bytesPerMonth: number | null }
  // Workers.
  | { readonly _tag: "Take"; readonly message: number; readonly outcome: RunOutcome }
  | { readonly _tag: "Finish"; readonly run: number }
  | { readonly _tag: "Stall"; readonly run: number }
  /** Extension: a run turns out to record a live stream (its media is live): it records the recording's start. */
  | { readonly _tag: "GoLive"; readonly run: number }
  /** Extension: a recording run puts one more part of its recording into the artifact store (JobRecordingKept). */
  | { readonly _tag: "KeepRecording"; readonly run: number }
  /** Extension: a recording run's worker dies (kill -9): with parts kept its job's next run joins them, else it fails. */
  | { readonly _tag: "LoseRecordingWorker"; readonly run: number }
  // NATS and processes dying.
  | { readonly _tag: "Write"; readonly gate: number }
  | { readonly _tag: "FailWrite"; readonly gate: number }
  | { readonly _tag: "Crash"; readonly process: number }
  // Reactors, woken in any order, late or early (each round decides from the state it reads).
  | { readonly _tag: "RetryRound"; readonly job: number }
  | { readonly _tag: "FeedRound"; readonly batch: number }
  | { readonly _tag: "Sweep"; readonly job: number }
  /** The delivery reactor tries a stored job's delivery, the destination answering as `mode` says. */
  | { readonly _tag: "DeliveryRound"; readonly job: number; readonly mode: DestinationMode }
  /** The retention reactor's round of a project's delivering subscription (keep_last 1), the destination as `mode` says. */
  | { readonly _tag: "RetentionRound"; readonly project: number; readonly mode: DestinationMode }
  | { readonly _tag: "Project"; readonly events: number }
  /**
   * An ended job passes its lifetime: the stream's age limit takes its events and the read model's its document, and
   * the reactors' listings no longer name it (a retained subscription's library still holds what it delivered).
   */
  | { readonly _tag: "JobRecordsGone"; readonly job: number }
  // The clock: past heartbeats, backoffs, ack waits, deduplication windows and lifetimes.
  | { readonly _tag: "Tick"; readonly ms: number }

const index = fc.nat({ max: 15 })
const project = fc.nat({ max: 1 })
const gateway = fc.nat({ max: 1 })

const outcome: fc.Arbitrary<RunOutcome> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }).map((mb): RunOutcome => ({ _tag: "Complete", bytes: mb * 1_000_000 })) },
  { weight: 2, arbitrary: fc.constant<RunOutcome>({ _tag: "FailRetryable" }) },
  { weight: 1, arbitrary: fc.constant<RunOutcome>({ _tag: "FailForGood" }) },
  {
    weight: 1,
    arbitrary: fc
      .option(fc.constantFrom(30_000, 3_600_000), { nil: null })
      .map((startsInMs): RunOutcome => ({ _tag: "NotBegun", startsInMs }))
  },
  { weight: 1, arbitrary: fc.constant<RunOutcome>({ _tag: "Infrastructure" }) }
)

/** Times the model's clock jumps by: within a heartbeat, past the ack wait, a backoff, the duplicate window, a lifetime. */
const tick = fc.constantFrom(1_000, 10_000, 30_000, 61_000, 121_000, 600_000, 3_600_000)

/** A client's subscriptions, their feeds and the checks reactor's rounds. */
const subscriptionSteps: ReadonlyArray<fc.WeightedArbitrary<Action>> = [
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Subscribe" as const), project, backfill: fc.nat({ max: 2 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("ChangeSubscription" as const),
      subscription: index,
      change: fc.constantFrom<SubscriptionChange>("PauseSubscription", "ResumeSubscription", "RemoveSubscription", "CheckNow", "CheckNow")
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("FeedChanges" as const),
      subscription: index,
      grows: fc.nat({ max: 2 }),
      failing: fc.constantFrom(false, false, false, true)
    })
  },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("SubscriptionRound" as const), subscription: index }) }
] as const

/** A scheduled stream's steps: its download, and the live-wait rounds with what their probe finds. */
const liveSteps: ReadonlyArray<fc.WeightedArbitrary<Action>> = [
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("DownloadUpcoming" as const),
      project,
      gateway,
      startsInMs: fc.constantFrom(0, 30_000, 600_000, 7_200_000)
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("LiveRound" as const),
      job: index,
      probe: fc.constantFrom("live", "not_live", "not_live", "failed")
    })
  }
] as const

export const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ _tag: fc.constant("Download" as const), project, gateway, destination: fc.constantFrom(false, false, true) })
  },
  ...liveSteps,
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Batch" as const), project, entries: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Cancel" as const), job: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("CancelBatch" as const), batch: index }) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Retry" as const), job: index, gateway }) },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("Quota" as const),
      project,
      jobsPerDay: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
      bytesPerMonth: fc.option(
        fc.integer({ min: 0, max: 12 }).map((mb) => mb * 1_000_000),
        { nil: null }
      )
    })
  },
  ...subscriptionSteps,
  { weight: 8, arbitrary: fc.record({ _tag: fc.constant("Take" as const), message: index, outcome }) },
  { weight: 6, arbitrary: fc.record({ _tag: fc.constant("Finish" as const), run: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Stall" as const), run: index }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("GoLive" as const), run: index }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("KeepRecording" as const), run: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("LoseRecordingWorker" as const), run: index }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("StopRecording" as const), job: index, gateway }) },
  { weight: 20, arbitrary: fc.record({ _tag: fc.constant("Write" as const), gate: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("FailWrite" as const), gate: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Crash" as const), process: index }) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("RetryRound" as const), job: index }) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("FeedRound" as const), batch: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Sweep" as const), job: index }) },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("DeliveryRound" as const),
      job: index,
      mode: fc.constantFrom<DestinationMode>("ok", "ok", "unreachable", "denied")
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("RetentionRound" as const),
      project,
      mode: fc.constantFrom<DestinationMode>("ok", "ok", "unreachable")
    })
  },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Project" as const), events: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("JobRecordsGone" as const), job: index }) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Tick" as const), ms: tick }) }
)

/** A generated history of up to `maxLength` steps (most of them long: interleavings need room). */
export function historyOf(maxLength: number, step: fc.Arbitrary<Action> = action): fc.Arbitrary<ReadonlyArray<Action>> {
  return fc.array(step, { minLength: 1, maxLength, size: "max" })
}

/** A generated history: what happens, in order, before the model lets everything settle. */
export const history = historyOf(80)

/**
 * Steps around subscriptions: theirs, weighted up, with the workers, NATS, the reactors, the quota, a client's cancel of
 * an entry's job and the clock (no other downloads: the subscriptions' own jobs fill the slots).
 */
export const subscriptionAction: fc.Arbitrary<Action> = fc.oneof(
  ...subscriptionSteps.map(({ weight, arbitrary }) => ({ weight: weight * 3, arbitrary })),
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Cancel" as const), job: index }) },
  {
    weight: 1,
    arbitrary: fc.record({
      _tag: fc.constant("Quota" as const),
      project,
      jobsPerDay: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
      bytesPerMonth: fc.constant(null)
    })
  },
  { weight: 8, arbitrary: fc.record({ _tag: fc.constant("Take" as const), message: index, outcome }) },
  { weight: 6, arbitrary: fc.record({ _tag: fc.constant("Finish" as const), run: index }) },
  { weight: 20, arbitrary: fc.record({ _tag: fc.constant("Write" as const), gate: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("FailWrite" as const), gate: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Crash" as const), process: index }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("RetryRound" as const), job: index }) },
  { weight: 4, arbitrary: fc.record({ _tag: fc.constant("FeedRound" as const), batch: index }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Sweep" as const), job: index }) },
  {
    weight: 2,
    arbitrary: fc.record({
      _tag: fc.constant("RetentionRound" as const),
      project,
      mode: fc.constantFrom<DestinationMode>("ok", "ok", "unreachable")
    })
  },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Project" as const), events: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Tick" as const), ms: tick }) }
)

/** A generated history around subscriptions (most of them long: interleavings need room). */
export const subscriptionHistory = historyOf(80, subscriptionAction)

/** One line per step, for a failing history's trace. */
export const describeAction = (step: Action): string => {
  const { _tag, ...fields } = step
  const shown = Object.entries(fields).map(
    ([key, value]) => `${key}=${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`
  )
  return `${_tag}(${shown.join(", ")})`
}

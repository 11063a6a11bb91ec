// Extension: the live-wait reactor's round: a scheduled job's one state, `liveWaitReaction`, and its reaction carried
// out (the wait as the woken message's redelivery delay, a probe recorded, a slot taken, the give-up).
import { Clock, Effect } from "effect"
import type { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { beginLiveJob } from "@mds/shared/application/job/BeginLiveJob"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { JobStates } from "@mds/shared/application/job/JobStates"
import type { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { liveWaitReaction, type LiveWaitTrigger } from "@mds/shared/domain/job/JobSchedule"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import { Done, later } from "../reactors/Reactor.ts"
import { LiveProbe } from "./LiveProbe.ts"

/** The stream began but the project's slots are all held: look again this soon (a slot frees when a job ends). */
export const SLOT_WAIT_MS = 5_000

/** A scheduled job, and (when an event woke it) that event's sequence: only the job's latest event keeps its timer. */
export interface LiveJobKey {
  readonly projectId: string
  readonly jobId: string
  readonly seq?: number
}

/** A round decides, acts, and decides again from the state it made (a probe that found it live begins it at once). */
const STEPS_PER_ROUND = 3

/**
 * Takes the slot: false while the project's slots are all held. A quota used up fails the job quota_exceeded (a new
 * download would be refused so; a job that began cannot be, and waiting for the quota's reset could take a month). A
 * job no longer scheduled is left as it is.
 */
const begin = (projectId: string, jobId: string) =>
  beginLiveJob(projectId, jobId).pipe(
    Effect.tap(() => Effect.logInfo("scheduled job began", { jobId })),
    Effect.as(true),
    Effect.catchTags({
      ConcurrencyLimitExceeded: () => Effect.succeed(false),
      QuotaExceeded: (refused) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const error = {
            code: "quota_exceeded",
            message: `The stream began, but the project's ${refused.quota} quota was used up.`,
            retryable: false
          } as const
          yield* jobCommands(projectId, jobId)({ _tag: "FailJob", jobId, error, now })
          return true
        }),
      InvalidJobTransition: () => Effect.succeed(true),
      JobNotFound: () => Effect.succeed(true)
    })
  )

export const makeLiveWaitRound = Effect.gen(function* () {
  const services = yield* Effect.context<EventStore | JobStates | Lifetimes | LiveWait | LiveProbe | ProjectQuotaReader>()

  return Effect.fn("LiveWaiter.round")(function* ({ projectId, jobId, seq }: LiveJobKey, trigger: LiveWaitTrigger["_tag"]) {
    const live = yield* LiveWait
    const commands = jobCommands(projectId, jobId)
    for (let step = 0; step < STEPS_PER_ROUND; step++) {
      const now = yield* Clock.currentTimeMillis
      const current = yield* (yield* JobStates).current(projectId, jobId)
      // A later event of the job woke (or will wake) a round of its own: this message's timer is no longer needed.
      if (seq !== undefined && current.lastSeq > seq) return Done
      const reactions = liveWaitReaction(current.state, { _tag: trigger, now })
      const [reaction] = reactions
      if (reaction === undefined) return Done
      switch (reaction._tag) {
        case "WaitUntil":
          // The wait is the woken message's redelivery delay (a durable timer in JetStream): nothing is kept in memory.
          return later(reaction.at - now, "waiting for the stream")
        case "GiveUp":
          yield* commands({ _tag: "GiveUpWaiting", jobId, now })
          return Done
        case "Probe": {
          const url = current.state?.source.url ?? ""
          const probed = yield* (yield* LiveProbe).probe(projectId, url)
          yield* commands({
            _tag: "RecordLiveProbe",
            jobId,
            now,
            live,
            outcome: probed.outcome,
            ...(probed.startsAt === undefined ? {} : { startsAt: probed.startsAt })
          })
          // Recorded: the event's own message (or the next reconcile) carries the wait on; a reconcile's round that
          // found the stream live goes on to take the slot.
          if (probed.outcome !== "live" || seq !== undefined) return Done
          break
        }
        case "Begin":
          if (!(yield* begin(projectId, jobId))) return later(SLOT_WAIT_MS, "project's slots all held")
          return Done
      }
    }
    return Done
  }, Effect.provide(services))
})

// The job aggregate's command handler, bound once: every job command goes through it, with one deduplication rule.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { jobSubject } from "../../nats/Subjects.ts"
import { JobDecider } from "../../domain/job/JobDecider.ts"
import { JobEvent } from "../../domain/job/JobEvent.ts"

/**
 * A job has one JobQueued, JobCompleted, JobExpired, JobCanceled and JobAwaitingStart at most; it starts once per attempt and is retried
 * once per retry number. A retried job fails once per try and reports each percentage once per try, and two of its
 * tries never end or report in the same millisecond. So the event itself names its append: a retried command (the
 * same `now`) appends nothing twice, and the next try's failure or progress is not taken for a duplicate.
 */
export const jobEventId = (event: JobEvent): string => {
  switch (event._tag) {
    case "JobStarted":
      // Two messages of a try (a hand-off sent again) may race for the same attempt: the one that lost must not take
      // the winner's start for its own.
      return `${event._tag}:${event.jobId}:${event.attempt}:${event.work ?? ""}`
    case "JobRetried":
      return `${event._tag}:${event.jobId}:${event.retry}`
    case "JobProgressed":
      return `${event._tag}:${event.jobId}:${event.percent}:${event.at}`
    case "JobFailed":
    case "JobStored":
    case "JobDeliveryFailed":
      // Once per try (a retried job stores and may fail its delivery again), never twice in one millisecond.
      return `${event._tag}:${event.jobId}:${event.at}`
    case "JobRecordingProgressed":
      return `${event._tag}:${event.jobId}:${event.seconds}:${event.bytes}:${event.ended ?? ""}:${event.at}`
    case "JobRecordingStarted":
      return `${event._tag}:${event.jobId}:${event.attempt}`
    case "JobLiveProbed":
      return `${event._tag}:${event.jobId}:${event.at}`
    case "JobDeliveryTried":
      return `${event._tag}:${event.jobId}:${event.attempt}:${event.at}`
    case "JobRecordingKept":
      return `${event._tag}:${event.jobId}:${event.chunks}`
    case "JobQueued":
    case "JobScheduled":
    case "JobAwaitingStart":
    case "JobLiveBegan":
    case "JobCompleted":
    case "JobStopRequested":
    case "JobDelivered":
    case "JobDeliveryRemoved":
    case "JobExpired":
    case "JobCanceled":
      return `${event._tag}:${event.jobId}`
  }
}

const handleJob = commandHandler({ decider: JobDecider, codec: JobEvent, msgId: jobEventId })

/** The handler of one job's commands: `jobCommands(projectId, jobId)(command)`. */
export const jobCommands = forSubject(handleJob, jobSubject)

// The job aggregate's command handler, bound once: every job command goes through it, with one deduplication rule.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { jobSubject } from "../../eventstore/Subjects.ts"
import { JobDecider } from "./JobDecider.ts"
import { JobEvent } from "./JobEvent.ts"

/**
 * A job has one JobQueued, JobCompleted, JobFailed and JobExpired at most; it starts once per attempt and reports
 * each percentage once. So the event itself names its append: a retried command appends nothing twice.
 */
export const jobEventId = (event: JobEvent): string => {
  switch (event._tag) {
    case "JobStarted":
      return `${event._tag}:${event.jobId}:${event.attempt}`
    case "JobProgressed":
      return `${event._tag}:${event.jobId}:${event.percent}`
    default:
      return `${event._tag}:${event.jobId}`
  }
}

const handleJob = commandHandler({ decider: JobDecider, codec: JobEvent, msgId: jobEventId })

/** The handler of one job's commands: `jobCommands(projectId, jobId)(command)`. */
export const jobCommands = forSubject(handleJob, jobSubject)

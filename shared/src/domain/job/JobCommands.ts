// The job aggregate's command handler, bound once: every job command goes through it, with one deduplication rule.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { jobSubject } from "../../eventstore/Subjects.ts"
import { JobDecider } from "./JobDecider.ts"
import { JobEvent } from "./JobEvent.ts"

/**
 * A job has one JobQueued, JobCompleted, JobExpired and JobCanceled at most; it starts once per attempt and is retried
 * once per retry number. A retried job fails once per try and reports each percentage once per try, and two of its
 * tries never end or report in the same millisecond. So the event itself names its append: a retried command (the
 * same `now`) appends nothing twice, and the next try's failure or progress is not taken for a duplicate.
 */
export const jobEventId = (event: JobEvent): string => {
  switch (event._tag) {
    case "JobStarted":
      return `${event._tag}:${event.jobId}:${event.attempt}`
    case "JobRetried":
      return `${event._tag}:${event.jobId}:${event.retry}`
    case "JobProgressed":
      return `${event._tag}:${event.jobId}:${event.percent}:${event.at}`
    case "JobFailed":
      return `${event._tag}:${event.jobId}:${event.at}`
    case "JobQueued":
    case "JobCompleted":
    case "JobExpired":
    case "JobCanceled":
      return `${event._tag}:${event.jobId}`
  }
}

const handleJob = commandHandler({ decider: JobDecider, codec: JobEvent, msgId: jobEventId })

/** The handler of one job's commands: `jobCommands(projectId, jobId)(command)`. */
export const jobCommands = forSubject(handleJob, jobSubject)

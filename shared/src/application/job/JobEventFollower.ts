// Follows every job event in MDS_JOBS from the start, in memory: for folds that a replay rebuilds after a restart.
import { JOBS_STREAM, jobSubject } from "../../nats/Subjects.ts"
import { type FollowedMessage, followDecoded } from "../../nats/StreamFollower.ts"
import { decodeJobEventJson, type JobEvent } from "../../domain/job/JobEvent.ts"

/** The stream keeps every job that can still be read; a consumer that stops delivering is re-created after its last message. */
export const followJobEvents = (name: string, onEvent: (event: JobEvent, message: FollowedMessage) => void) =>
  followDecoded({ name, stream: JOBS_STREAM.name, filterSubject: jobSubject.all, from: "all", decode: decodeJobEventJson, onEvent })

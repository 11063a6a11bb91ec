// Follows every job event in MDS_JOBS from the start, in memory: for folds that a replay rebuilds after a restart.
import { ALL_JOBS_SUBJECT, JOBS_STREAM } from "../../eventstore/Subjects.ts"
import { type FollowedMessage, followDecoded } from "../../nats/StreamFollower.ts"
import { decodeJobEventJson, type JobEvent } from "./JobEvent.ts"

/** The stream keeps every job that can still be read; a consumer that stops delivering is re-created after its last message. */
export const followJobEvents = (name: string, onEvent: (event: JobEvent, message: FollowedMessage) => void) =>
  followDecoded({ name, stream: JOBS_STREAM.name, filterSubject: ALL_JOBS_SUBJECT, from: "all", decode: decodeJobEventJson, onEvent })

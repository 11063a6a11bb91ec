// How a job's stored document follows from its events: the pure fold, stepping over poison. No link is stored (it
// is signed where it is answered), so the document depends on the events alone, whoever rebuilds it.
import { Option } from "effect"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"

/** One message of a job subject as JSON text, with its stream sequence. */
export interface JobMessage {
  readonly seq: number
  readonly data: string
}

/**
 * Folds `messages` (one subject's, in stream order) onto `doc`. A message that does not decode (poison) is stepped
 * over: its own delivery is terminated by the consumer. Returns `doc` itself when nothing changed.
 */
export const foldJobMessages = (doc: JobView | null, messages: Iterable<JobMessage>): JobView | null => {
  let folded = doc
  for (const message of messages) {
    const event = decodeJobEventJson(message.data)
    if (Option.isSome(event)) folded = evolveJobView(folded, event.value, message.seq)
  }
  return folded
}

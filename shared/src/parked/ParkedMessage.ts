// A message a shared consumer set aside after its handler failed on it again and again, and what an operator's replay
// of it came to: the records of MDS_PARKED and MDS_PARKED_REPLAYS (docs/operations.md, "Parked messages").
import { Schema } from "effect"

export const ParkedMessage = Schema.Struct({
  v: Schema.Literal(1),
  /** The durable consumer whose handler failed. */
  consumer: Schema.String,
  /** Where the message is: its stream, subject and sequence there. */
  stream: Schema.String,
  subject: Schema.String,
  seq: Schema.Number,
  /** The message as delivered (a replay hands exactly this to the handler). */
  data: Schema.String,
  headers: Schema.Record(Schema.String, Schema.Array(Schema.String)),
  /** The last failure, as the handler's cause printed it (at most 1000 characters). */
  error: Schema.String,
  /** Failures of the handler on it, counted ones only (a store that did not answer is not counted). */
  attempts: Schema.Number,
  parkedAt: Schema.Number,
  /** For a message a replay failed on again: the parked id it was before. */
  replayOf: Schema.optionalKey(Schema.Number)
})
export type ParkedMessage = typeof ParkedMessage.Type

/** A parked message and its id: its sequence in MDS_PARKED, what the CLI names it by. */
export interface ParkedEntry {
  readonly id: number
  readonly message: ParkedMessage
}

export const ReplayRequest = Schema.Struct({
  id: Schema.Number,
  /** A core NATS subject the outcome is published to, for the CLI waiting on it (none: nobody waits). */
  replyTo: Schema.optionalKey(Schema.String)
})
export type ReplayRequest = typeof ReplayRequest.Type

export const ReplayOutcome = Schema.Struct({
  id: Schema.Number,
  outcome: Schema.Literals([
    /** The handler took it: it is gone from the parked messages. */
    "replayed",
    /** The handler failed again: parked again, as `parkedAgainAs`, with the new error. */
    "failed",
    /** The handler found it unreadable (terminated): dropped. */
    "terminated",
    /** The handler asked to look again later (a webhook endpoint that failed): the replay runs again then. */
    "later",
    /** Nothing is parked under that id (replayed or dropped before). */
    "gone"
  ]),
  error: Schema.optionalKey(Schema.String),
  parkedAgainAs: Schema.optionalKey(Schema.Number)
})
export type ReplayOutcome = typeof ReplayOutcome.Type

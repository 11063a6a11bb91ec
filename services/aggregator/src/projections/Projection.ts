// A projection as data: the stream and durable consumer it follows, how a message decodes, and how it is projected.
import { PubHeaders } from "@nats-io/jetstream"
import type { Effect } from "effect"

/** A delivered message as a projection sees it. */
export interface ProjectedMessage {
  readonly subject: string
  readonly seq: number
  readonly data: string
  /** The subject's sequence before this message, when it was appended expecting it (see previousSubjectSeq). */
  readonly previousSeq: number | undefined
}

/**
 * The event store appends every aggregate event expecting the subject's last sequence; the stream keeps that
 * expectation as a header, so a message tells which one came before it on its subject (0: it is the first). The events
 * of one decision are one atomic batch on one subject, stored consecutively, and only the batch's first message carries
 * the expectation: a later one follows the message just before it.
 */
export const previousSubjectSeq = (headers: { get(name: string): string } | undefined, seq: number): number | undefined => {
  const batchSeq = Number(headers?.get("Nats-Batch-Sequence") || "1")
  if (Number.isSafeInteger(batchSeq) && batchSeq > 1) return seq - 1
  const value = headers?.get(PubHeaders.ExpectedLastSubjectSequenceHdr)
  if (value === undefined || value === "") return undefined
  const previous = Number(value)
  return Number.isSafeInteger(previous) && previous >= 0 ? previous : undefined
}

export interface Projection<A, R> {
  readonly stream: string
  /** The durable consumer's name: the position in the stream survives restarts. */
  readonly durable: string
  readonly filter: string
  /** An undecodable message is terminated (it never blocks the stream). */
  readonly decode: (data: string) => Effect.Effect<A, unknown>
  /** Writes the read model; the message is acknowledged only after it succeeded. */
  readonly project: (event: A, message: ProjectedMessage) => Effect.Effect<unknown, unknown, R>
}

export const projection = <A, R>(definition: Projection<A, R>): Projection<A, R> => definition

/** The same projections under other durable names (a second instance in tests, a fresh deployment). */
export const withDurablePrefix = <P extends Projection<any, any>>(prefix: string, projections: ReadonlyArray<P>): ReadonlyArray<P> =>
  projections.map((definition) => ({ ...definition, durable: `${prefix}-${definition.durable}` }))

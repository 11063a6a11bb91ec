// A projection as data: the stream and durable consumer it follows, how a message decodes, and how it is projected.
import type { Effect } from "effect"

/** A delivered message as a projection sees it. */
export interface ProjectedMessage {
  readonly subject: string
  readonly seq: number
  readonly data: string
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

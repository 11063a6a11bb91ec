// A delivered message as a consumer's handler reads it, and what the handler tells JetStream about it.
import type { MsgHdrs } from "@nats-io/transport-node"
import type { Effect } from "effect"
import type { Failed } from "./HandlerFailure.ts"

/** A JetStream message, or a parked one handed back by a replay. */
export interface DeliveredMessage {
  readonly subject: string
  readonly seq: number
  readonly headers: MsgHdrs | undefined
  readonly info: { readonly deliveryCount: number }
  string(): string
}

/** What to tell JetStream about one message once its handling ended. */
export type Verdict =
  | { readonly _tag: "Ack" }
  /** Look again later, by design (a backoff, a full project, an endpoint that failed): never parks the message. */
  | { readonly _tag: "Nak"; readonly delayMs: number; readonly reason: string }
  | { readonly _tag: "Term"; readonly reason: string }
  /** The handler failed: retried after `delayMs`; parked once counted failures reach CONSUMER_PARK_AFTER_FAILURES. */
  | Failed

export type MessageHandler = (msg: DeliveredMessage) => Effect.Effect<Verdict>

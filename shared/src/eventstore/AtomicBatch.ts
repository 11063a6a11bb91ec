// JetStream atomic batch publish (nats-server 2.12+, ADR-50): several messages stored all or none, in one commit.
import { headers as natsHeaders, type MsgHdrs, type NatsConnection, nuid } from "@nats-io/transport-node"
import { Effect, Schema } from "effect"

export interface BatchMessage {
  readonly subject: string
  readonly payload: Uint8Array
  readonly msgId: string
}

/** What the server said of the batch: stored (the last message's sequence) or refused with its JetStream error code. */
export type BatchOutcome =
  | { readonly _tag: "Stored"; readonly seq: number }
  | { readonly _tag: "Refused"; readonly errCode: number; readonly description: string }

/** The reply to a batch message: empty while the batch is open, a pub ack (or an error) at its commit or refusal. */
const PubAckReply = Schema.Struct({
  seq: Schema.optional(Schema.Number),
  count: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.Struct({ err_code: Schema.optional(Schema.Number), description: Schema.optional(Schema.String) }))
})
const decodeReply = Schema.decodeUnknownEffect(Schema.fromJsonString(PubAckReply))

export class BatchPublishFailed extends Schema.TaggedError<BatchPublishFailed>()("BatchPublishFailed", { message: Schema.String }) {}

/**
 * Publishes the messages as one atomic batch. The first carries `expectedLastSubjectSeq` (the server checks it at the
 * commit, under the stream's lock, against the stream before the batch; a later message of the same subject may not
 * carry one), each its `Nats-Msg-Id`. Every message is a request, so a refusal ends the batch at the message refused.
 * nats.js's own batch publisher hides the refusal's error code behind a count mismatch, which a conflict needs.
 */
export const publishAtomicBatch = (
  connection: NatsConnection,
  messages: ReadonlyArray<BatchMessage>,
  options: { readonly expectedLastSubjectSeq: number; readonly extraHeaders: MsgHdrs | undefined; readonly timeoutMs: number }
): Effect.Effect<BatchOutcome, BatchPublishFailed> =>
  Effect.gen(function* () {
    const batchId = nuid.next()
    for (const [index, message] of messages.entries()) {
      const headers = natsHeaders()
      for (const [name, values] of options.extraHeaders ?? []) for (const value of values) headers.append(name, value)
      headers.set("Nats-Batch-Id", batchId)
      headers.set("Nats-Batch-Sequence", String(index + 1))
      headers.set("Nats-Msg-Id", message.msgId)
      if (index === 0) headers.set("Nats-Expected-Last-Subject-Sequence", String(options.expectedLastSubjectSeq))
      const last = index === messages.length - 1
      if (last) headers.set("Nats-Batch-Commit", "1")
      const reply = yield* Effect.tryPromise({
        try: () => connection.request(message.subject, message.payload, { headers, timeout: options.timeoutMs }),
        catch: (cause) => new BatchPublishFailed({ message: cause instanceof Error ? cause.message : String(cause) })
      })
      if (reply.data.length === 0) {
        if (last) return yield* new BatchPublishFailed({ message: "the batch's commit was answered without an acknowledgement" })
        continue
      }
      const ack = yield* decodeReply(reply.string()).pipe(Effect.mapError((error) => new BatchPublishFailed({ message: error.message })))
      if (ack.error !== undefined)
        return { _tag: "Refused", errCode: ack.error.err_code ?? 0, description: ack.error.description ?? "refused" } as const
      if (!last)
        return yield* new BatchPublishFailed({ message: `the batch was acknowledged at message ${index + 1} of ${messages.length}` })
      if (ack.seq === undefined || ack.count !== messages.length)
        return yield* new BatchPublishFailed({
          message: `the batch's commit acknowledged ${ack.count ?? 0} of ${messages.length} messages`
        })
      return { _tag: "Stored", seq: ack.seq } as const
    }
    return yield* new BatchPublishFailed({ message: "an empty batch" })
  })

// The lifecycle model's work queue: JetStream's durable pull consumer on the work stream, as the extractor uses it.
// A message is taken by one worker at a time; unacknowledged past the ack wait (no heartbeat) it is offered again;
// a nak offers it again after its delay; an ack removes it. Messages come from the model's event store, so the
// stream's own deduplication window decides what a re-sent message is.
import type { StoredMessage } from "@mds/shared/eventstore/InMemoryEventStore"

export interface WorkMessage {
  readonly seq: number
  readonly stored: StoredMessage
  readonly payload: unknown
  deliveries: number
  /** Offered to workers from this time on (0: now); while taken, when its ack wait runs out. */
  availableAt: number
  takenBy: number | null
  acked: boolean
}

export class WorkQueue {
  private readonly messages = new Map<number, WorkMessage>()
  private seen = 0
  private readonly subjectPrefix: string
  private readonly ackWaitMs: number
  private readonly source: () => ReadonlyArray<StoredMessage>
  private readonly removeAcked: (message: StoredMessage) => void

  /** Messages on subjects under `subjectPrefix`; an acknowledged one leaves the stream (`removeAcked`), as in a work queue. */
  constructor(
    subjectPrefix: string,
    ackWaitMs: number,
    source: () => ReadonlyArray<StoredMessage>,
    removeAcked: (message: StoredMessage) => void
  ) {
    this.subjectPrefix = subjectPrefix
    this.ackWaitMs = ackWaitMs
    this.source = source
    this.removeAcked = removeAcked
  }

  /** Picks up what was appended to the work subject since the last look. */
  private sync(): void {
    const all = this.source()
    for (; this.seen < all.length; this.seen++) {
      const message = all[this.seen]!
      if (!message.subject.startsWith(this.subjectPrefix)) continue
      this.messages.set(message.seq, {
        seq: message.seq,
        stored: message,
        payload: message.payload,
        deliveries: 0,
        availableAt: 0,
        takenBy: null,
        acked: false
      })
    }
  }

  /** Messages a worker may take at `now`: not acknowledged, not taken (or their ack wait ran out), not delayed. */
  available(now: number): ReadonlyArray<WorkMessage> {
    this.sync()
    return [...this.messages.values()].filter((message) => !message.acked && message.availableAt <= now)
  }

  /** Every message not acknowledged yet. */
  unacknowledged(): ReadonlyArray<WorkMessage> {
    this.sync()
    return [...this.messages.values()].filter((message) => !message.acked)
  }

  take(seq: number, worker: number, now: number): WorkMessage | undefined {
    const message = this.available(now).find((candidate) => candidate.seq === seq)
    if (message === undefined) return undefined
    message.deliveries += 1
    message.takenBy = worker
    message.availableAt = now + this.ackWaitMs
    return message
  }

  /** The taker's heartbeat (`working()`): its ack wait starts again. A taker that lost the message changes nothing. */
  working(seq: number, worker: number, now: number): void {
    const message = this.messages.get(seq)
    if (message !== undefined && message.takenBy === worker && !message.acked) message.availableAt = now + this.ackWaitMs
  }

  /** Any delivery's ack acknowledges the message (JetStream goes by its sequence). */
  ack(seq: number): void {
    const message = this.messages.get(seq)
    if (message === undefined || message.acked) return
    message.acked = true
    this.removeAcked(message.stored)
  }

  /** Any delivery's nak hands the message back, to be offered again after the delay. */
  nak(seq: number, now: number, delayMs: number): void {
    const message = this.messages.get(seq)
    if (message === undefined || message.acked) return
    message.takenBy = null
    message.availableAt = now + delayMs
  }
}

// A work message as a download run sees it, and what the run tells the worker to do with the message afterwards.

export interface Delivery {
  /** The message's stream sequence: the same on every delivery of it, another for a message sent again. */
  readonly workSeq: number
  readonly deliveryCount: number
  /** Tells JetStream the message is still being worked on (resets its ack timer). */
  readonly working: () => void
  /** HLS/DASH fragments its runs may fetch at once: the platform's setting, as far as its connection budget granted. */
  readonly concurrentFragments: number
}

/**
 * "ack" once the job reached an end (or needs nothing more); "retry" when infrastructure failed on the way; "abandon"
 * when a later delivery of the same message took the run over (this run went unheard past the ack wait): the message
 * is that run's now, so this one neither acknowledges nor hands it back.
 */
export type DownloadOutcome = "ack" | "retry" | "abandon"

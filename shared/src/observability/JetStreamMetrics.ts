// Scrape-time gauges read from JetStream: every durable consumer's lag and parked messages, and the download work
// queue's depth.
import { Effect } from "effect"
import { NatsClient } from "../nats/NatsClient.ts"
import { WORK_STREAM } from "../nats/Subjects.ts"
import { parkedCounts } from "../parked/ParkedMessages.ts"
import { consumerAckPending, consumerPending, parkedMessages, setGauge, workQueueDepth } from "./Metrics.ts"

/** The durable consumer that takes download commands (extractor workers share it). */
const WORK_CONSUMER = "extractor"

/** Consumers no longer listed whose parked messages were reported at the last scrape. */
const parkedOfGoneConsumers = new Set<string>()

export const collectJetStreamMetrics = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const consumers = yield* Effect.tryPromise(async () => {
    const found: Array<{ stream: string; name: string; pending: number; ackPending: number }> = []
    for await (const stream of jsm.streams.list()) {
      // Only MDS streams, and only durables: ephemeral ordered consumers (SSE, key directory) come and go.
      if (!stream.config.name.startsWith("MDS_")) continue
      for await (const info of jsm.consumers.list(stream.config.name)) {
        if (info.config.durable_name === undefined) continue
        found.push({ stream: stream.config.name, name: info.name, pending: info.num_pending, ackPending: info.num_ack_pending })
      }
    }
    return { found, parked: await parkedCounts(jsm) }
  })
  // Parked by a consumer that no longer exists (renamed, deleted): still waiting for an operator; 0 once dropped.
  const known = new Set(consumers.found.map((consumer) => consumer.name))
  for (const name of parkedOfGoneConsumers) if (!consumers.parked.has(name)) yield* setGauge(parkedMessages, { consumer: name }, 0)
  parkedOfGoneConsumers.clear()
  for (const [name, count] of consumers.parked) {
    if (known.has(name)) continue
    parkedOfGoneConsumers.add(name)
    yield* setGauge(parkedMessages, { consumer: name }, count)
  }
  for (const consumer of consumers.found) {
    const labels = { stream: consumer.stream, consumer: consumer.name }
    yield* setGauge(consumerPending, labels, consumer.pending)
    yield* setGauge(consumerAckPending, labels, consumer.ackPending)
    yield* setGauge(parkedMessages, { consumer: consumer.name }, consumers.parked.get(consumer.name) ?? 0)
    if (consumer.stream === WORK_STREAM.name && consumer.name === WORK_CONSUMER) {
      yield* setGauge(workQueueDepth, { state: "waiting" }, consumer.pending)
      yield* setGauge(workQueueDepth, { state: "in_progress" }, consumer.ackPending)
    }
  }
})

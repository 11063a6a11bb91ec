// The replica count a stream or bucket gets on start (NATS_REPLICAS at creation, raised but never lowered after), and
// an existing bucket's stream brought in line with config.
import type { JetStreamManager } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"

/** What an existing stream is updated to: an operator who raised it by hand (or a larger NATS_REPLICAS) keeps it. */
export const replicasOnStart = (existing: number | undefined, wanted: number): number => Math.max(existing ?? 1, wanted)

/**
 * A bucket's `create` opens an existing bucket as it is: its stream is brought to the configured max age and replica
 * count (raised, never lowered), and updated only when one of them differs.
 */
export const alignBucketStream = async (jsm: JetStreamManager, stream: string, maxAgeMs: number, replicas: number) => {
  const info = await jsm.streams.info(stream)
  const wantedReplicas = replicasOnStart(info.config.num_replicas, replicas)
  if (info.config.max_age !== nanos(maxAgeMs) || info.config.num_replicas !== wantedReplicas) {
    await jsm.streams.update(stream, { ...info.config, max_age: nanos(maxAgeMs), num_replicas: wantedReplicas })
  }
}

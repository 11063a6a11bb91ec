// The replica count a stream or KV bucket gets on start: NATS_REPLICAS at creation, raised but never lowered after.

/** What an existing stream is updated to: an operator who raised it by hand (or a larger NATS_REPLICAS) keeps it. */
export const replicasOnStart = (existing: number | undefined, wanted: number): number => Math.max(existing ?? 1, wanted)

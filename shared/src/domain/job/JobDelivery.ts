// Extension: a job's delivery into its destination, as the job's state holds it: where the stored file goes, how far
// the delivery came (pending, delivered, failed; removed once retention deleted it) and when it is tried next.
import { Schema } from "effect"

export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed", "removed"])
export type DeliveryStatus = typeof DeliveryStatus.Type

/** Why one delivery attempt failed: the destination's code (DestinationWriter) and what it said. */
export const DeliveryErrorCode = Schema.Literals([
  "destination_unreachable",
  "destination_denied",
  "destination_missing",
  "destination_failed"
])
export type DeliveryErrorCode = typeof DeliveryErrorCode.Type

export const DeliveryError = Schema.Struct({ code: DeliveryErrorCode, message: Schema.String })
export type DeliveryError = typeof DeliveryError.Type

/** The destination answered this way now, but may not later (a network, an outage, a full disk): tried again. */
export const isRetryableDelivery = (code: DeliveryErrorCode): boolean => code === "destination_unreachable" || code === "destination_failed"

/** A sidecar the run stored beside the artifact (`key` in the service's store) and where it goes in the destination. */
export const DeliveredSidecar = Schema.Struct({
  key: Schema.String,
  path: Schema.String,
  contentType: Schema.String,
  /** Extension: a file of a subscription's show (`tvshow.nfo`, `poster.jpg`), shared by its entries: never removed with one. */
  show: Schema.optionalKey(Schema.Literal(true))
})
export type DeliveredSidecar = typeof DeliveredSidecar.Type

/**
 * Where the file and its sidecars go: the rendered path of the media and its sidecars'. Everything is read back from the
 * service's store, so any deliverer can carry it out (or take it over after a crash).
 */
export const DeliveryTarget = Schema.Struct({
  destinationId: Schema.String,
  /** The media's path inside the destination (the template rendered with the media's fields). */
  path: Schema.String,
  sidecars: Schema.Array(DeliveredSidecar)
})
export type DeliveryTarget = typeof DeliveryTarget.Type

/** The paths one entry's removal deletes: the media and its own sidecars, never the show's shared files. */
export const removablePaths = (delivery: Pick<DeliveryTarget, "path" | "sidecars">): ReadonlyArray<string> => [
  ...delivery.sidecars.filter((sidecar) => sidecar.show !== true).map((sidecar) => sidecar.path),
  delivery.path
]

export const JobDeliveryView = Schema.Struct({
  ...DeliveryTarget.fields,
  status: DeliveryStatus,
  /** Failed attempts so far (JobDeliveryTried and the final JobDeliveryFailed). */
  attempts: Schema.Number,
  /** When the next attempt is due (epoch ms), null when none is waiting. */
  retryAt: Schema.NullOr(Schema.Number),
  /** The last attempt's failure, null until one failed. */
  error: Schema.NullOr(DeliveryError),
  deliveredAt: Schema.NullOr(Schema.Number),
  /** Extension: when retention removed the delivered files (status removed). */
  removedAt: Schema.optionalKey(Schema.Number)
})
export type JobDeliveryView = typeof JobDeliveryView.Type

/**
 * The delay before the retry that follows failed attempt `attempt` (1 for the first), or null when attempts are used
 * up: `retryDelaysMs` holds one delay per retry, so a delivery is tried `retryDelaysMs.length + 1` times at most.
 */
export const deliveryRetryDelay = (retryDelaysMs: ReadonlyArray<number>, attempt: number): number | null =>
  retryDelaysMs[attempt - 1] ?? null

// Extension: where a job's file goes once stored, as the job was queued with it: the project's destination, the path
// template (checked when the request named it) and the sidecars to write beside it. Absent: the job is kept only in
// the service's store, as before.
import { Schema } from "effect"
import { LibraryShowOrder } from "./LibraryShowOrder.ts"
import { SidecarKind } from "./Sidecars.ts"

export const DeliveryOrder = Schema.Struct({
  destinationId: Schema.String,
  /** The template's text, as parsePathTemplate accepted it (the request's, else DEFAULT_PATH_TEMPLATE). */
  pathTemplate: Schema.String,
  sidecars: Schema.Array(SidecarKind),
  /** Extension: set on a subscription's jobs (LibraryShowOrder): numbered episodes and the show's files. */
  library: Schema.optionalKey(LibraryShowOrder)
})
export type DeliveryOrder = typeof DeliveryOrder.Type

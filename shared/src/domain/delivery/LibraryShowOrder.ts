// Extension: what a subscription's job carries so its delivery writes a media library's show: the subscription it
// came from and the show's title and ids, set by the subscription's check on its batch's options (never by a client),
// so the run numbers the episode's NFO and writes `tvshow.nfo` and `poster.jpg` once in the subscription's folder.
import { Schema } from "effect"

export const LibraryShowOrder = Schema.Struct({
  subscriptionId: Schema.String.check(Schema.isMaxLength(100)),
  /** The playlist's or channel's title as the check resolved it. */
  title: Schema.String.check(Schema.isMaxLength(500)),
  /** The playlist's media id in the service (its uniqueid in `tvshow.nfo`). */
  playlistId: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200)))
})
export type LibraryShowOrder = typeof LibraryShowOrder.Type

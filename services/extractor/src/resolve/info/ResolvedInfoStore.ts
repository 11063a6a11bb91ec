// Port: the info JSON yt-dlp produced when a media was resolved, kept for the media's lifetime so a download runs from it.
import { Context, type Effect, type Option, Schema } from "effect"

export class ResolvedInfoStoreError extends Schema.TaggedError<ResolvedInfoStoreError>()("ResolvedInfoStoreError", {
  operation: Schema.String,
  message: Schema.String
}) {}

/**
 * The info can carry cookies and per-format headers: it is kept here only, never in events or logs. Every extractor
 * replica must reach the same store (a download may run on another replica than the resolve).
 */
export class ResolvedInfoStore extends Context.Service<
  ResolvedInfoStore,
  {
    /** Keeps `info` (yt-dlp's JSON text) under the media id until the media expires; a second put replaces it. */
    put(mediaId: string, info: string): Effect.Effect<void, ResolvedInfoStoreError>
    /** None once the media expired, or when it was never stored (resolved before this store existed, or a put failed). */
    get(mediaId: string): Effect.Effect<Option.Option<string>, ResolvedInfoStoreError>
  }
>()("mds/extractor/ResolvedInfoStore") {}

// Port: resolved media by id and by requested URL (the resolve cache). Adapters: NATS KV (embedded), MongoDB.
import { Context, type Effect, type Option } from "effect"
import type { MediaResolved } from "../domain/media/MediaEvent.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class MediaReadModel extends Context.Service<
  MediaReadModel,
  {
    get(mediaId: string): Effect.Effect<Option.Option<MediaResolved>, ReadModelError>
    /** The latest media resolved from exactly this URL, if any. */
    findByUrl(url: string): Effect.Effect<Option.Option<MediaResolved>, ReadModelError>
    put(media: MediaResolved): Effect.Effect<void, ReadModelError>
  }
>()("mds/readmodel/MediaReadModel") {}

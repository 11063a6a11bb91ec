// Extension: a subscription's URL that resolves as one media, not as a playlist, channel or feed.
import { Schema } from "effect"

export class NotAPlaylist extends Schema.TaggedError<NotAPlaylist>()("NotAPlaylist", { url: Schema.String }) {}

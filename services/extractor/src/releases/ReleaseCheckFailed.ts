// A freshly installed yt-dlp that failed its self-check (the local file or a canary), with what went wrong.
import { Schema } from "effect"

export class ReleaseCheckFailed extends Schema.TaggedError<ReleaseCheckFailed>()("ReleaseCheckFailed", {
  message: Schema.String
}) {}

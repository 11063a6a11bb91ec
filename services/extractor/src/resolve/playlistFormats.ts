// Extension: the formats a playlist offers for its entries: the format grammar's own ids (each entry is judged when downloaded).
import type { MediaFormat } from "@mds/shared/domain/media/MediaEvent"

export const FORMAT_GRAMMAR_FORMATS: ReadonlyArray<MediaFormat> = [
  { id: "video_best", type: "video", quality: "best", container: "mp4" },
  { id: "audio_best", type: "audio", quality: "best", container: "original" },
  { id: "audio_m4a", type: "audio", quality: "aac", container: "m4a" },
  { id: "audio_mp3", type: "audio", quality: "mp3", container: "mp3" }
]

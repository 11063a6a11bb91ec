// Whether a finished file must be opened with ffprobe: only when yt-dlp's announcement left its streams or length open.
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { known } from "../ytdlp/describeMedia.ts"
import type { AnnouncedMedia } from "../ytdlp/InfoLine.ts"
import type { JobLimits } from "./JobLimits.ts"

/**
 * The file is probed to refuse a format the media lacks (a direct file's `b` takes audio for video_best) and to judge
 * the duration limit when nothing announced one. When yt-dlp announced the stream the job asked for and, where a limit
 * applies, the duration (a platform's formats, or a resolve's stored info that carries its own probe), the probe would
 * only repeat it: ffprobe's start alone costs a confined run about a tenth of a second.
 */
export const needsFileProbe = (spec: FormatSpec, announced: AnnouncedMedia | null, limits: JobLimits): boolean => {
  if (announced === null) return true
  const stream = spec.kind === "video" ? announced.videoCodec : announced.audioCodec
  if (!known(stream)) return true
  return limits.maxDurationSeconds > 0 && announced.durationSeconds === null
}

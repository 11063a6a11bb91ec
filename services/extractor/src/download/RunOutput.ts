// Reads a job's yt-dlp run as it goes: progress, the media yt-dlp announced, the file it reported, and the job's
// limits judged on each fact as soon as it is known (a breach ends the run at once).
import { Deferred, Effect, Option } from "effect"
import { type ClipSection, sectionOutOfRange } from "@mds/shared/domain/job/DownloadOptions"
import { parseCurlMeterLine } from "../ytdlp/CurlMeterLine.ts"
import { type AnnouncedMedia, parseInfoLine } from "../ytdlp/InfoLine.ts"
import { parseProgressBytes, parseProgressLine } from "../ytdlp/ProgressLine.ts"
import { type DownloadedFile, parseResultLine } from "../ytdlp/ResultLine.ts"
import { clipDuration } from "../ytdlp/SectionFlags.ts"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import type { FetchOptions } from "./FetchOptions.ts"
import { type JobLimits, limitBreach, type MediaFacts, withoutByteCaps } from "./JobLimits.ts"

export interface RunOutput {
  readonly onLine: (line: string) => void
  readonly onErrorLine: (line: string) => void
  /** Fails once a limit is crossed: racing it against yt-dlp kills the run at once. */
  readonly overLimit: Effect.Effect<never, DownloadFailed>
  /** What yt-dlp announced of the chosen media before downloading it, once it did. */
  readonly announced: () => AnnouncedMedia | null
  /** The file yt-dlp reported, once it did. */
  readonly result: () => DownloadedFile | null
}

export const watchRunOutput = (options: FetchOptions, section: ClipSection | undefined, limits: JobLimits): RunOutput => {
  // Completed from the line callbacks when a limit is crossed.
  const overLimit = Deferred.makeUnsafe<never, DownloadFailed>()
  let announced: AnnouncedMedia | null = null
  let result: DownloadedFile | null = null
  const judge = (facts: MediaFacts) => {
    const mediaDuration = facts.durationSeconds ?? null
    const outside = section === undefined ? null : sectionOutOfRange(section, mediaDuration)
    if (outside !== null) Deferred.doneUnsafe(overLimit, Effect.fail(jobFailure("section_out_of_range", outside)))
    // A clip is judged by its own length, not the whole media's. A live recording ends itself at its byte cap
    // (LiveRecording), keeping its file, instead of failing.
    const judged = options.live?.recording() === true ? withoutByteCaps(limits) : limits
    const breach = limitBreach(judged, { ...facts, durationSeconds: clipDuration(section, mediaDuration) })
    if (breach !== null) Deferred.doneUnsafe(overLimit, Effect.fail(jobFailure(breach.code, breach.message)))
  }
  const onLine = (line: string) => {
    const percent = parseProgressLine(line)
    if (percent !== null) options.onPercent(percent)
    const bytes = parseProgressBytes(line, options.concurrentFragments)
    if (bytes !== null) judge({ bytes })
    const info = parseInfoLine(line)
    if (Option.isSome(info)) {
      announced = info.value
      if (info.value.live) options.live?.onLive()
      judge(info.value)
    }
    const parsed = parseResultLine(line)
    if (Option.isSome(parsed)) result = parsed.value
  }
  // Files curl downloads report no progress lines on stdout; curl's own meter on stderr says as much, once a second.
  const onErrorLine = (line: string) => {
    const meter = parseCurlMeterLine(line)
    if (meter === null) return
    if (meter.percent !== null) options.onPercent(meter.percent)
    judge({ bytes: meter.bytes })
  }
  return { onLine, onErrorLine, overLimit: Deferred.await(overLimit), announced: () => announced, result: () => result }
}

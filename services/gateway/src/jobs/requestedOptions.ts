// Extension: the download request's opt-in fields as the job's DownloadOptions, judged against what is known of the media.
import type { DownloadRequest } from "@mds/shared/api/Requests"
import { SectionOutOfRange } from "@mds/shared/domain/DomainErrors"
import { type DownloadOptions, sectionOutOfRange } from "@mds/shared/domain/job/DownloadOptions"
import { Effect } from "effect"

/** Only what the client sent: a plain download has no options at all. */
export const requestedOptions = (body: DownloadRequest): DownloadOptions => ({
  ...(body.section === undefined
    ? {}
    : { section: { start: body.section.start, end: body.section.end, precise: body.section.precise ?? false } })
})

/**
 * A section must lie within the media. With a media id the duration is known now (0 when the platform did not say);
 * with a URL only the extractor learns it, and the job fails section_out_of_range instead.
 */
export const checkOptions = (options: DownloadOptions, durationSeconds: number | null): Effect.Effect<void, SectionOutOfRange> => {
  if (options.section === undefined) return Effect.void
  const problem = sectionOutOfRange(options.section, durationSeconds)
  return problem === null ? Effect.void : Effect.fail(new SectionOutOfRange({ message: problem }))
}

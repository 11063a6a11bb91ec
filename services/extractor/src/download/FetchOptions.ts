// What a fetch is given by its run (directory, project, fragments at once, where progress goes), and where a yt-dlp
// run takes the media from.
import type { FormatStart } from "./clip/clipInfo.ts"
import type { LiveRecording } from "./LiveRecording.ts"

export interface FetchOptions {
  readonly workDir: string
  /** The job's project: its cookies for the platform, if any, go with every run. */
  readonly projectId: string
  /** HLS/DASH fragments a run fetches at once (yt-dlp's --concurrent-fragments). */
  readonly concurrentFragments: number
  /** Called with the latest download percent (0-100) whenever yt-dlp reports one. */
  readonly onPercent: (percent: number) => void
  /** Extension: the run's live recording, should its media turn out live (absent: a run that never records). */
  readonly live?: LiveRecording
}

/**
 * The page (a full extraction), or the info JSON the resolve stored, written into the run's directory. For a clip of
 * fragmented media that info holds only the clip's fragments and `clipStarts` where each format's begin (the run
 * fetches them natively and the clip is cut locally); null when yt-dlp cuts the clip itself, or there is none.
 * `impersonates`: the info may ask yt-dlp for browser impersonation (an `impersonate` field anywhere in it).
 */
export type MediaSource =
  | { readonly _tag: "Page"; readonly url: URL }
  | {
      readonly _tag: "StoredInfo"
      readonly infoPath: string
      readonly clipStarts: ReadonlyMap<string, FormatStart> | null
      readonly impersonates: boolean
    }

/**
 * Whether a run from this source, given these impersonation flags, impersonates nothing for sure: only a stored info
 * without `impersonate` can say so. A page's extractor may impersonate unasked.
 */
export const impersonatesNothing = (source: MediaSource, impersonateFlags: object): boolean =>
  source._tag === "StoredInfo" && !source.impersonates && Object.keys(impersonateFlags).length === 0

/** The trimmed formats' starts when this run's clip is cut locally from its fragments. */
export const clipStartsOf = (source: MediaSource): ReadonlyMap<string, FormatStart> | null =>
  source._tag === "StoredInfo" ? source.clipStarts : null

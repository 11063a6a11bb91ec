// What a fetch is given by its run (directory, project, fragments at once, where progress goes), and where a yt-dlp
// run takes the media from.

export interface FetchOptions {
  readonly workDir: string
  /** The job's project: its cookies for the platform, if any, go with every run. */
  readonly projectId: string
  /** HLS/DASH fragments a run fetches at once (yt-dlp's --concurrent-fragments). */
  readonly concurrentFragments: number
  /** Called with the latest download percent (0-100) whenever yt-dlp reports one. */
  readonly onPercent: (percent: number) => void
}

/** The page (a full extraction), or the info JSON the resolve stored, written into the run's directory. */
export type MediaSource = { readonly _tag: "Page"; readonly url: URL } | { readonly _tag: "StoredInfo"; readonly infoPath: string }

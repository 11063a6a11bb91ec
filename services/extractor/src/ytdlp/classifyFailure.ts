// Maps what a failed yt-dlp run printed to the stable failure code a client sees.

export type ExtractionFailureCode =
  | "unsupported_platform"
  | "media_unavailable"
  | "format_unavailable"
  | "url_not_allowed"
  | "live_not_started"
  | "transient"
  | "failed"

const PATTERNS: ReadonlyArray<readonly [RegExp, ExtractionFailureCode]> = [
  // First: "HTTP Error 503: Service Unavailable" must not read as unavailable media. These may pass if tried again, and
  // so may a run whose process was lost (warm/WarmRun.ts: its warm runner died under it).
  [
    /HTTP Error (429|5\d\d)|returned error: (429|5\d\d)|transfer closed with|Empty reply from server|timed? ?out|Connection (reset|refused|aborted)|Remote end closed|IncompleteRead|Temporary failure in name resolution|Tunnel connection failed: 50\d|Bad Gateway|EOF occurred in violation|Network is unreachable|process was lost mid-run/i,
    "transient"
  ],
  // A manifest naming a segment, key or init section by a protocol other than http(s) (httpproxy:, file:, tcp:...):
  // refused like a private address. Before "Unsupported URL", which it would otherwise match.
  [/Unsupported url scheme/i, "url_not_allowed"],
  // Extension: a stream or premiere that has not begun (yt-dlp's "This live event will begin in 3 hours", "Premieres
  // in 2 days"): before "not available", which some of these messages also say.
  [/live event will begin|Premieres? in \d|premiere will begin|stream (is scheduled|will start)/i, "live_not_started"],
  [/Unsupported URL/i, "unsupported_platform"],
  // The last one: yt-dlp's audio extraction found no audio stream in what it downloaded (a silent video).
  [/Requested format is not available|No video formats found|no suitable formats|unable to obtain file audio codec/i, "format_unavailable"],
  [
    /HTTP Error (404|410)|returned error: (404|410)|Private video|is private|has been removed|been deleted|not available|unavailable|does not exist|account .*terminated|members[- ]only|Sign in to confirm|login required|requires authentication/i,
    "media_unavailable"
  ]
]

/** yt-dlp's ERROR: lines, and the reason curl gave when it downloaded (yt-dlp then only says "curl exited with code N"). */
const errorLines = (stderr: string) => stderr.split(/\r?\n|\r/).filter((line) => line.startsWith("ERROR:") || /^curl: \(\d+\)/.test(line))

const CURL_EXITED = /^ERROR: curl exited with code/

/** `refused` says whether the egress proxy refused a hop during the run: that explains the failure best. */
export const classifyFailure = (stderr: string, refused: boolean): ExtractionFailureCode => {
  if (refused) return "url_not_allowed"
  const errors = errorLines(stderr).join("\n") || stderr
  for (const [pattern, code] of PATTERNS) if (pattern.test(errors)) return code
  return "failed"
}

/** The message of a run the egress proxy refused a hop of: the first address it refused. */
export const refusedHopMessage = (refusals: ReadonlyArray<{ readonly message: string }>): string =>
  `a request was refused: ${refusals[0]?.message ?? "private address"}`

/** The message of a url_not_allowed failure: the address the proxy refused, else the URI yt-dlp would not open. */
export const refusalMessage = (refusals: ReadonlyArray<{ readonly message: string }>, stderr: string): string => {
  if (refusals.length > 0) return refusedHopMessage(refusals)
  const scheme = /Unsupported url scheme:\s*"?([^"\s)]+)/i.exec(stderr)?.[1]
  return scheme === undefined
    ? `a request was refused: ${failureMessage(stderr)}`
    : `the media names a "${scheme}:" URI; only http and https URIs are fetched`
}

/** The last ERROR: line without yt-dlp's prefixes, short enough for a job's error message. */
export const failureMessage = (stderr: string): string => {
  const errors = errorLines(stderr)
  const line = errors.filter((l) => !CURL_EXITED.test(l)).at(-1) ?? errors.at(-1) ?? stderr.trim().split("\n").at(-1) ?? ""
  const cleaned = line
    .replace(/^ERROR:\s*/, "")
    .replace(/^curl: \(\d+\)\s*/, "")
    .replace(/^\[[^\]]+\]\s*/, "")
    .replace(/\s*\(caused by .*$/, "")
    .trim()
  return (cleaned === "" ? "the extractor failed" : cleaned).slice(0, 300)
}

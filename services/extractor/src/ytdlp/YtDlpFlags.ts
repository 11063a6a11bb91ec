// The yt-dlp command-line flags every run gets, and the flags that select a download format.
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"

/** camelCase flag names, turned into --kebab-case by youtube-dl-exec; `false` becomes --no-<flag>. */
export type YtDlpFlags = Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>

export const PROGRESS_MARKER = "[mds-progress]"
export const INFO_MARKER = "[mds-info]"
export const RESULT_MARKER = "[mds-result]"
/** Extension: the result line of a job with a destination, carrying yt-dlp's whole info of the media. */
export const DELIVERY_RESULT_MARKER = "[mds-result-info]"

/** Printed once the format is chosen, before the download starts: the job's limits are judged on it, and a live stream is known by it. */
export const INFO_PRINT = `video:${INFO_MARKER} %(.{duration,filesize,filesize_approx,vcodec,acodec,format_id,is_live,live_status,release_timestamp})j`

export const PROGRESS_TEMPLATE =
  `download:${PROGRESS_MARKER} %(progress.downloaded_bytes)s %(progress.total_bytes)s ` +
  `%(progress.total_bytes_estimate)s %(progress.fragment_index)s %(progress.fragment_count)s`

/**
 * Never read user or system config files (they could add --exec), never follow a playlist, never run
 * commands, and send every request through the egress proxy.
 */
export const baseFlags = (proxyUrl: string, ffmpegPath: string): YtDlpFlags => ({
  ignoreConfig: true,
  noPlaylist: true,
  exec: false,
  noCacheDir: true,
  noMtime: true,
  proxy: proxyUrl,
  socketTimeout: 20,
  // A bare command name is found on PATH by yt-dlp itself; only real paths need pointing at.
  ...(ffmpegPath.includes("/") ? { ffmpegLocation: ffmpegPath } : {})
})

export const formatFlags = (spec: FormatSpec): YtDlpFlags => {
  if (spec.kind === "video") {
    // `?` lets formats of unknown height (direct files) pass the filter instead of failing it.
    const selector = spec.height === null ? "bv*+ba/b" : `bv*[height<=?${spec.height}]+ba/b[height<=?${spec.height}]`
    return { format: selector, formatSort: "ext:mp4:m4a", mergeOutputFormat: "mp4" }
  }
  switch (spec.codec) {
    case "best":
      return { format: "ba/b", extractAudio: true }
    case "mp3":
      return { format: "ba/b", extractAudio: true, audioFormat: "mp3", audioQuality: "192K" }
    case "m4a":
      return { format: "ba[ext=m4a]/ba/b", extractAudio: true, audioFormat: "m4a" }
  }
}

/** What yt-dlp's own ffmpeg downloads may open: network protocols only, with `httpproxy` for https tunnels. */
export const FFMPEG_DOWNLOAD_PROTOCOLS = "https,tls,http,tcp,crypto,hls,httpproxy"

/**
 * Plain HTTP(S) files are fetched by curl (about 4x faster than yt-dlp's own downloader); HLS, DASH and the rest stay
 * native. yt-dlp hands curl its --proxy; --noproxy "" overrides any NO_PROXY in the environment, so curl never goes
 * direct, and every redirect is a new request through the proxy, judged again. --fail turns an HTTP error into a
 * failed run instead of a saved error page. Without curl on PATH yt-dlp falls back to its own downloader.
 */
export const CURL_DOWNLOADER_FLAGS: YtDlpFlags = {
  downloader: "http:curl",
  downloaderArgs: [
    `curl:--fail --noproxy "" --proto =http,https --proto-redir =http,https`,
    // yt-dlp hands some streams (SAMPLE-AES, some DASH) to ffmpeg, which reads the manifest itself: the same protocol
    // whitelist as our own ffmpeg runs of an https input (docs/security.md, "Confinement of media tools").
    `ffmpeg_i:-protocol_whitelist ${FFMPEG_DOWNLOAD_PROTOCOLS}`
  ]
}

/**
 * Output goes to a fixed name inside the job's own directory: titles never reach the filesystem here.
 * `concurrentFragments` HLS/DASH fragments are fetched at once (video and audio parts alike; each through the proxy on
 * a connection of its own); a plain file is one curl transfer whatever it is, and a clip is read by ffmpeg.
 */
export const downloadFlags = (
  spec: FormatSpec,
  workDir: string,
  proxyUrl: string,
  ffmpegPath: string,
  concurrentFragments = 1
): YtDlpFlags => ({
  ...baseFlags(proxyUrl, ffmpegPath),
  ...formatFlags(spec),
  ...CURL_DOWNLOADER_FLAGS,
  concurrentFragments,
  // A stream or premiere that has not begun has no formats yet: yt-dlp then still prints what it knows of the media
  // (INFO_PRINT: live_status is_upcoming, release_timestamp) before it fails, so the job can wait for the start.
  ignoreNoFormatsError: true,
  paths: workDir,
  output: "media.%(ext)s",
  newline: true,
  // yt-dlp's own retries of a broken transfer back off too; the job retries whole runs on top (FetchMedia).
  retries: 4,
  fragmentRetries: 4,
  retrySleep: ["http:exp=1:8", "fragment:exp=1:8"],
  // --print implies --quiet; --progress brings the progress lines back.
  progress: true,
  progressTemplate: PROGRESS_TEMPLATE,
  print: [INFO_PRINT, `after_move:${RESULT_MARKER} %(.{filepath,title,ext,extractor_key})j`],
  restrictFilenames: true
})

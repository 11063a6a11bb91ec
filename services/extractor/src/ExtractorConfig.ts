// The extractor's own settings: where it works, time and size limits, retries, and how many jobs run at once.
import { hostname } from "node:os"
import { join } from "node:path"
import { DataDir } from "@mds/shared/config/DataDir"
import { Config, Context, Effect, Layer } from "effect"
import { secondsAsMs, wholeSecondsAsMs } from "@mds/shared/config/Seconds"

/** The entries of a comma-separated setting ("youtube=2, vimeo=1"), trimmed, empty ones left out. */
export const commaSeparatedEntries = (text: string): ReadonlyArray<string> =>
  text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")

/**
 * The yt-dlp executable this extractor starts with (YT_DLP_PATH): the release it runs until the fleet chooses another,
 * and whose venv's python the confinement's relay runs on. Read here only.
 */
export const YtDlpPath = Config.String("YT_DLP_PATH").pipe(Config.withDefault("yt-dlp"))

export interface ExtractorConfigShape {
  readonly workRoot: string
  /** ffmpeg, for yt-dlp's merges and the service's own runs (probes, thumbnails, conversions, clip cuts, remuxes). */
  readonly ffmpegPath: string
  readonly ffprobePath: string
  readonly resolveTimeoutMs: number
  readonly downloadTimeoutMs: number
  readonly workerConcurrency: number
  readonly workerId: string
  /** Longest media a job may download, in seconds (0: no limit). */
  readonly maxDurationSeconds: number
  /** Largest file a job may produce, in bytes (0: no limit). */
  readonly maxFileBytes: number
  /** How often a transient failure (network error, 5xx, 429) is retried inside one job, with exponential backoff. */
  readonly downloadRetries: number
  readonly downloadRetryBaseMs: number
  /** JetStream redelivers a work message this long after its last heartbeat (a worker that died). */
  readonly workAckWaitMs: number
  /** Runs of one job before it is failed with attempts_exhausted (a job that keeps killing its workers). */
  readonly workMaxAttempts: number
  /** Extension: the most entries a playlist resolve lists (yt-dlp stops reading the playlist there). */
  readonly playlistMaxEntries: number
  /** Extension: the longest a live recording lasts, in seconds: a job's max_duration's default and ceiling. */
  readonly liveMaxDurationSeconds: number
  /** Extension: live recordings one project may make at once (the rest fail live_recordings_exceeded, retryable). */
  readonly liveRecordingsPerProject: number
}

export class ExtractorConfig extends Context.Service<ExtractorConfig, ExtractorConfigShape>()("mds/extractor/ExtractorConfig") {
  static readonly config = Config.all({
    workRoot: DataDir.pipe(Config.map((dir) => join(dir, "work"))),
    ffmpegPath: Config.String("FFMPEG_PATH").pipe(Config.withDefault("ffmpeg")),
    ffprobePath: Config.String("FFPROBE_PATH").pipe(Config.withDefault("ffprobe")),
    resolveTimeoutMs: wholeSecondsAsMs("RESOLVE_TIMEOUT_SECONDS", 90),
    downloadTimeoutMs: wholeSecondsAsMs("DOWNLOAD_TIMEOUT_SECONDS", 1800),
    workerConcurrency: Config.Int("WORKER_CONCURRENCY").pipe(Config.withDefault(2)),
    workerId: Config.String("WORKER_ID").pipe(Config.withDefault(`${hostname()}:${process.pid}`)),
    maxDurationSeconds: Config.Int("MAX_MEDIA_DURATION_SECONDS").pipe(Config.withDefault(4 * 3600)),
    maxFileBytes: Config.Number("MAX_FILE_SIZE_MB").pipe(
      Config.withDefault(4096),
      Config.map((mb) => Math.round(mb * 1024 * 1024))
    ),
    downloadRetries: Config.Int("DOWNLOAD_RETRIES").pipe(Config.withDefault(3)),
    downloadRetryBaseMs: secondsAsMs("DOWNLOAD_RETRY_BASE_SECONDS", 2),
    workAckWaitMs: wholeSecondsAsMs("WORK_ACK_WAIT_SECONDS", 60),
    workMaxAttempts: Config.Int("WORK_MAX_ATTEMPTS").pipe(Config.withDefault(3)),
    playlistMaxEntries: Config.Int("PLAYLIST_MAX_ENTRIES").pipe(Config.withDefault(500)),
    liveMaxDurationSeconds: Config.Int("LIVE_MAX_DURATION_SECONDS").pipe(Config.withDefault(4 * 3600)),
    liveRecordingsPerProject: Config.Int("LIVE_RECORDINGS_PER_PROJECT").pipe(Config.withDefault(1))
  })

  static readonly layer = Layer.effect(ExtractorConfig, Effect.map(ExtractorConfig.config, ExtractorConfig.of))
}

// Every Prometheus metric the services export, in one place: names, help texts, label sets and buckets.
import { Effect, Metric } from "effect"

const SECONDS = Metric.boundariesFromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30])
const LONG_SECONDS = Metric.boundariesFromIterable([0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800])

/** Gateway: labels method, route (the route template, `unmatched` for unknown paths), status. */
export const httpRequestDuration = Metric.histogram("mds_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by method, route template and status.",
  boundaries: SECONDS
})

/** Extractor: labels operation (resolve|download), platform, outcome (ok|error). */
export const ytDlpDuration = Metric.histogram("mds_ytdlp_duration_seconds", {
  description: "Wall time of yt-dlp runs, by operation, platform and outcome.",
  boundaries: LONG_SECONDS
})

/** Extractor: labels operation, platform, code (the job or API error code). */
export const extractionFailures = Metric.counter("mds_extraction_failures_total", {
  description: "Failed resolves and downloads, by operation, platform and error code.",
  incremental: true
})

/**
 * Extractor: labels platform, reason (urls_refused: the stored media URLs were refused, e.g. expired signatures;
 * info_missing: nothing stored for the media). Downloads by media id that had to extract from the page again.
 */
export const reextractions = Metric.counter("mds_download_reextractions_total", {
  description: "Downloads by media id that ran a fresh extraction from the page instead of the stored resolve, by platform and reason.",
  incremental: true
})

/** Aggregator: label state (queued|processing|completed|failed), jobs within their lifetime. */
export const jobsByState = Metric.gauge("mds_jobs", { description: "Jobs within their lifetime, by state." })

export const projectJobsEnded = Metric.gauge("mds_project_jobs_ended", {
  description: "Jobs of a project that ended, by outcome (completed, failed, canceled, expired), over the job stream's retention."
})

export const projectDownloadedBytes = Metric.gauge("mds_project_downloaded_bytes", {
  description: "Bytes of the files of a project's completed jobs, over the job stream's retention."
})

/** Aggregator: download commands on the work queue, label state (waiting|in_progress). */
export const workQueueDepth = Metric.gauge("mds_work_queue_depth", {
  description: "Download commands on the work queue: waiting for a worker, or taken and not yet acknowledged."
})

/** Aggregator: labels stream, consumer (durable consumers only). */
export const consumerPending = Metric.gauge("mds_nats_consumer_pending_messages", {
  description: "Messages of the stream the durable consumer has not yet been delivered (its lag)."
})
export const consumerAckPending = Metric.gauge("mds_nats_consumer_ack_pending_messages", {
  description: "Messages delivered to the durable consumer and not yet acknowledged."
})

/** Aggregator: label consumer (durable consumers only; 0 for those with none). */
export const parkedMessages = Metric.gauge("mds_parked_messages", {
  description: "Messages the durable consumer parked (its handler kept failing on them), waiting for an operator's replay or drop."
})

/** Records one timed observation in seconds. */
export const observeSeconds = (
  metric: Metric.Metric<number, unknown>,
  attributes: Record<string, string>,
  startedAtMs: number,
  endedAtMs: number
) => Metric.update(Metric.withAttributes(metric, attributes), Math.max(0, (endedAtMs - startedAtMs) / 1000))

export const setGauge = (metric: Metric.Metric<number, unknown>, attributes: Record<string, string>, value: number) =>
  Metric.update(Metric.withAttributes(metric, attributes), value)

export const countOne = (metric: Metric.Metric<number, unknown>, attributes: Record<string, string>) =>
  Metric.update(Metric.withAttributes(metric, attributes), 1)

/** Times an effect into a histogram, labelled with its outcome. */
export const timed = <A, E, R>(
  metric: Metric.Metric<number, unknown>,
  attributes: Record<string, string>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const started = Date.now()
    return effect.pipe(
      Effect.onExit((exit) =>
        observeSeconds(metric, { ...attributes, outcome: exit._tag === "Success" ? "ok" : "error" }, started, Date.now())
      )
    )
  })

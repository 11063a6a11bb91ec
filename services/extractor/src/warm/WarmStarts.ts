// Prometheus counter of yt-dlp starts, warm (a child of the warm runner) or cold (a new process).
import { Metric } from "effect"

/** Label start: warm|cold. Cold starts say why in the log ("yt-dlp run starts cold"). */
export const ytDlpStarts = Metric.counter("mds_ytdlp_starts_total", {
  description: "yt-dlp runs started, by how: warm (forked by the warm runner) or cold (a new process).",
  incremental: true
})

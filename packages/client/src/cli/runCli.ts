// The `mds` command line: resolve, download with progress (a live recording's duration), cancel, stop, retry,
// platforms, jobs get, usage, webhooks; the key comes from MDS_API_KEY only.
import { createWriteStream } from "node:fs"
import { rename, rm } from "node:fs/promises"
import { basename, resolve as resolvePath } from "node:path"
import { Readable, Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { parseArgs } from "node:util"
import type { DownloadExtensions } from "@mds/shared/api/Requests"
import type { Job, Media, Platform } from "@mds/shared/api/Responses"
import type { Batch } from "@mds/shared/api/Batches"
import type { CreateSubscriptionRequest, SubscriptionBody } from "@mds/shared/api/Subscriptions"
import { UsageDate } from "@mds/shared/api/Usage"
import { retentionWords } from "@mds/shared/domain/subscription/SubscriptionRetention"
import { Schema } from "effect"
import { MdsApiError, MdsConnectionError, MdsProtocolError } from "../MdsApiError.ts"
import { MdsClient } from "../MdsClient.ts"
import { jobProgressOf } from "./JobProgressText.ts"
import { formatBytes, ProgressDisplay, type ProgressMode } from "./ProgressDisplay.ts"
import { usageText } from "./UsageText.ts"
import { deliveriesText, redeliveryText } from "./WebhookText.ts"
import { ACCESS_KEY_ENV, addRequestOf, destinationsText, destinationText, SECRET_KEY_ENV, testText } from "./DestinationText.ts"

export interface CliIo {
  readonly stdout: { write(text: string): void }
  readonly stderr: { write(text: string): void; readonly isTTY?: boolean }
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
}

export const USAGE = `Usage: mds <command> [options]

Commands:
  resolve URL                       Show the media's title, duration and formats.
  download URL|MEDIA_ID --format F  Queue a download, show its progress, then save the file.
      -o, --output FILE             Where to save (default: the file name the service gives, in this directory).
      --progress bar|plain|none     bar on a terminal (default there), plain lines otherwise.
      --start S --end E [--precise] Only seconds S to E (--precise re-encodes at the cuts: exact to 0.5 s).
      --video-codec h264|vp9|av1|any, --container mp4|webm|mkv, --mute   Video output preset.
      --audio-bitrate KBPS          kbit/s of audio_mp3/audio_m4a.
      --embed-metadata, --embed-thumbnail   Tags and cover art in the file.
      --subtitles en,de             Embed these subtitle languages (--format subtitles_en: the .vtt file alone).
      --max-duration SECONDS        Live streams: end the recording after this many seconds.
      --destination DST_ID [--path TEMPLATE] [--sidecars nfo,thumbnail,info_json,subtitles]
                                    Deliver the file into a destination of the project (path default
                                    '{uploader}/{title} [{id}].{ext}'); prints where it went instead of saving it.
  cancel JOB_ID                     Cancel a queued or processing job.
  stop JOB_ID                       Stop a live recording and keep what it recorded (the job completes with the file).
  retry JOB_ID                      Queue a failed job again (only when its failure was retryable).
  batch PLAYLIST_URL --format F     Download every entry of a playlist (a feed, a page of links) as a batch,
                                    showing its progress; the files stay on the service (links: mds batches get).
  batches get|cancel BATCH_ID       Show or cancel a batch.
  subscribe URL --format F [--every 1h] [--backfill N]
                                    Follow a playlist, channel or feed: new entries download as they appear.
      --destination DST_ID [--path TEMPLATE] [--sidecars …]   Deliver each entry into a destination (as download).
      --keep-last N | --keep-days D Retention (with --destination): keep the newest N entries, or those delivered
                                    within D days; the service removes the older ones' files it delivered.
  subscriptions [get|pause|resume|check|remove ID]   List the subscriptions, or act on one.
  destinations [get|test|remove ID] List the destinations (S3 buckets, folders the operator gave), or act on one;
                                    test writes and removes a probe object.
  destinations add --name N --endpoint URL --bucket B [--region R] [--prefix P]
                                    Add an S3-compatible bucket; the keys come from ${ACCESS_KEY_ENV} and
                                    ${SECRET_KEY_ENV} (never from the command line).
  platforms                         List the supported platforms.
  jobs get JOB_ID                   Show a job.
  usage [--from YYYY-MM-DD] [--to YYYY-MM-DD]
                                    Jobs by outcome and downloaded bytes per day (UTC; default the last 30 days),
                                    the top errors and the project's quotas with their use.
  webhooks                          Recent webhook deliveries: event, outcome, status code, attempts, next retry.
  webhooks redeliver DELIVERY_ID    Send a job's delivery that ended again.

Options: --json prints the API's data as JSON instead of text.
Environment: MDS_API_KEY (required; never pass a key on the command line), MDS_URL (default http://127.0.0.1:8080).
`

/** A subscription's retention rule in words ("" without one). */
const retentionText = (retention: SubscriptionBody["retention"]): string =>
  retention === undefined
    ? ""
    : `, ${retentionWords("keep_last" in retention ? { keepLast: retention.keep_last } : { keepDays: retention.keep_days })}`

const subscriptionText = (s: SubscriptionBody) => {
  const last = s.last_check === null ? "never checked" : `last ${s.last_check.at}: ${s.last_check.new} new, ${s.last_check.queued} queued`
  const error = s.last_error === null ? "" : ` (${s.last_error.code}: ${s.last_error.message})`
  const every = `every ${s.check_every}s${retentionText(s.retention)}`
  return `${s.id} ${s.status.padEnd(7)} ${s.format} ${every}, ${last}, next ${s.next_check_at ?? "-"}${error}\n  ${s.url}\n`
}

/** `--keep-last N` or `--keep-days D` as the API's retention (at most one; the service judges the bounds). */
export const retentionOf = (values: Record<string, any>): Pick<CreateSubscriptionRequest, "retention"> => {
  const last: string | undefined = values["keep-last"]
  const days: string | undefined = values["keep-days"]
  if (last !== undefined && days !== undefined) throw new UsageError("give --keep-last or --keep-days, not both")
  const whole = (flag: string, value: string) => {
    if (!/^[0-9]+$/.test(value)) throw new UsageError(`${flag} must be a whole number (got ${value})`)
    return Number(value)
  }
  if (last !== undefined) return { retention: { keep_last: whole("--keep-last", last) } }
  if (days !== undefined) return { retention: { keep_days: whole("--keep-days", days) } }
  return {}
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 }

/** "90m", "1h", "3600" (seconds) as seconds. */
export const parseInterval = (value: string): number => {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim())
  if (match === null) throw new UsageError(`--every must be a duration like 30m, 1h or 1d (got ${value})`)
  return Number(match[1]) * (UNITS[match[2] || "s"] ?? 1)
}

const runSubscribe = async (client: MdsClient, url: string, values: Record<string, any>, io: CliIo) => {
  const format = values["format"]
  if (format === undefined) throw new UsageError("subscribe needs --format (e.g. audio_mp3, video_720p)")
  const backfill = values["backfill"] === undefined ? undefined : Number(values["backfill"])
  if (backfill !== undefined && !Number.isInteger(backfill))
    throw new UsageError(`--backfill must be a whole number (got ${values["backfill"]})`)
  const subscription = await client.subscribe({
    url,
    format,
    ...(values["every"] === undefined ? {} : { check_every: parseInterval(values["every"]) }),
    ...(backfill === undefined ? {} : { backfill }),
    ...retentionOf(values),
    ...extensionsOf(values)
  })
  io.stdout.write(values["json"] === true ? `${JSON.stringify(subscription, null, 2)}\n` : subscriptionText(subscription))
  return 0
}

const isUsageDate = Schema.is(UsageDate)

/** `--from`/`--to` as the API takes them; whether the day exists and the range fits is the service's to say. */
const usageDay = (flag: string, value: string | undefined) => {
  if (value !== undefined && !isUsageDate(value)) throw new UsageError(`${flag} must be a UTC day written YYYY-MM-DD (got ${value})`)
  return value
}

/** The whole delivery log the service keeps (its last 1000 attempts), so each delivery's attempts are all counted. */
const WHOLE_DELIVERY_LOG = 1000

/** Exit codes: 0 done, 1 the service said no (or the job failed), 2 wrong usage. */
class UsageError extends Error {}

const DEFAULT_URL = "http://127.0.0.1:8080"

const durationText = (seconds: number) =>
  seconds >= 3600
    ? `${Math.floor(seconds / 3600)}:${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`
    : `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`

const mediaText = (media: Media) =>
  [
    `${media.title} (${media.platform}, ${media.type}, ${durationText(media.duration)})`,
    `id: ${media.id}`,
    ...(media.author.name === "" ? [] : [`author: ${media.author.name}`]),
    "formats:",
    ...media.formats.map((format) => `  ${format.id.padEnd(12)} ${format.type.padEnd(6)} ${format.quality.padEnd(8)} ${format.container}`)
  ].join("\n") + "\n"

const platformsText = (platforms: ReadonlyArray<Platform>) =>
  platforms.map((platform) => `${platform.id.padEnd(12)} ${platform.name} (${platform.capabilities.join(", ")})`).join("\n") + "\n"

const jobText = (job: Job) =>
  [
    `${job.id}: ${job.status} ${job.progress}% (${job.platform}, ${job.requested_format})`,
    `created: ${job.created_at}`,
    ...(job.started_at === undefined ? [] : [`started: ${job.started_at}`]),
    ...(job.completed_at === undefined ? [] : [`completed: ${job.completed_at}`]),
    ...(job.result === undefined
      ? []
      : [
          `file: ${job.result.filename} (${formatBytes(job.result.size_bytes)}, until ${job.result.expires_at})`,
          `link: ${job.result.download_url}`
        ]),
    ...(job.retries === undefined ? [] : [`retries: ${job.retries} (attempts: ${job.attempts ?? 0})`]),
    ...(job.error === undefined ? [] : [`error: ${job.error.code}: ${job.error.message}`])
  ].join("\n") + "\n"

const batchText = (batch: Batch) =>
  [
    `${batch.id}: ${batch.status} ${batch.progress.completed}/${batch.progress.total} completed, ${batch.progress.failed} failed (${batch.format})`,
    ...batch.entries.map((entry) => `  ${entry.status.padEnd(9)} ${entry.job_id ?? "".padEnd(28)} ${entry.title}`)
  ].join("\n") + "\n"

const runBatch = async (client: MdsClient, url: string, values: Record<string, any>, io: CliIo) => {
  const format: string | undefined = values["format"]
  if (format === undefined) throw new UsageError("batch needs --format (e.g. audio_mp3, video_720p)")
  const playlist = await client.resolve(url, { playlist: { limit: 1 } })
  if (playlist.type !== "playlist") throw new UsageError(`${url} is not a playlist (it is one ${playlist.type}); use mds download`)
  let batch = await client.createBatch(playlist.id, format)
  const mode = progressMode(values["progress"], io)
  if (mode !== "none") io.stderr.write(`batch ${batch.id} of ${batch.progress.total} entries\n`)
  const display = new ProgressDisplay(mode, io.stderr)
  while (batch.status === "running") {
    display.update(
      `${batch.progress.completed + batch.progress.failed}/${batch.progress.total}`,
      ((batch.progress.completed + batch.progress.failed) / batch.progress.total) * 100
    )
    await new Promise((r) => setTimeout(r, 3_000))
    batch = await client.batch(batch.id)
  }
  display.finish()
  io.stdout.write(values["json"] === true ? `${JSON.stringify(batch, null, 2)}\n` : batchText(batch))
  return batch.progress.failed === 0 && batch.status === "completed" ? 0 : 1
}

const progressMode = (value: string | undefined, io: CliIo): ProgressMode => {
  if (value === undefined) return io.stderr.isTTY === true ? "bar" : "plain"
  if (value === "bar" || value === "plain" || value === "none") return value
  throw new UsageError(`--progress must be bar, plain or none (got ${value})`)
}

/** Streams the file to a .part file beside the target and renames it when complete, so no half file remains. */
const saveFile = async (client: MdsClient, job: Job, output: string, display: ProgressDisplay) => {
  const result = job.result
  if (result === undefined) throw new MdsProtocolError(200, "the completed job has no result")
  const response = await client.fetchFile(result.download_url)
  if (response.body === null) throw new MdsProtocolError(response.status, "the file answer has no body")
  const total = Number(response.headers.get("content-length") ?? result.size_bytes) || result.size_bytes
  let received = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length
      display.update("downloading", total > 0 ? (received / total) * 100 : 0, `${formatBytes(received)} / ${formatBytes(total)}`)
      callback(null, chunk)
    }
  })
  const partial = `${output}.part`
  try {
    await pipeline(Readable.fromWeb(response.body as any), counter, createWriteStream(partial))
    await rename(partial, output)
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
  display.update("downloading", 100, `${formatBytes(received)} / ${formatBytes(total)}`)
  display.finish()
  return received
}

const seconds = (flag: string, value: string) => {
  const number = Number(value)
  if (value.trim() === "" || !Number.isFinite(number) || number < 0)
    throw new UsageError(`${flag} must be a number of seconds (got ${value})`)
  return number
}

const wholeSeconds = (flag: string, value: string): number => {
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`${flag} must be a whole number of seconds (got ${value})`)
  return Number(value)
}

/** The download's extension fields from the flags; the service judges the combinations (and says which field is wrong). */
export const extensionsOf = (values: Record<string, any>): DownloadExtensions => {
  const start: string | undefined = values["start"]
  const end: string | undefined = values["end"]
  if (start !== undefined && end === undefined) throw new UsageError("--start needs --end")
  if (values["precise"] === true && end === undefined) throw new UsageError("--precise needs --start/--end")
  const bitrate: string | undefined = values["audio-bitrate"]
  if (bitrate !== undefined && !/^[0-9]+$/.test(bitrate))
    throw new UsageError(`--audio-bitrate must be a whole number of kbit/s (got ${bitrate})`)
  return {
    ...(end === undefined
      ? {}
      : {
          section: {
            start: start === undefined ? 0 : seconds("--start", start),
            end: seconds("--end", end),
            ...(values["precise"] === true ? { precise: true } : {})
          }
        }),
    ...(values["video-codec"] === undefined ? {} : { video_codec: values["video-codec"] }),
    ...(values["container"] === undefined ? {} : { container: values["container"] }),
    ...(bitrate === undefined ? {} : { audio_bitrate: Number(bitrate) }),
    ...(values["mute"] === true ? { mute: true } : {}),
    ...(values["embed-metadata"] === true ? { embed_metadata: true } : {}),
    ...(values["embed-thumbnail"] === true ? { embed_thumbnail: true } : {}),
    ...(values["max-duration"] === undefined ? {} : { max_duration: wholeSeconds("--max-duration", values["max-duration"]) }),
    ...(values["subtitles"] === undefined
      ? {}
      : {
          subtitles: String(values["subtitles"])
            .split(",")
            .map((l) => l.trim())
            .filter((l) => l !== "")
        }),
    ...(values["destination"] === undefined
      ? {}
      : {
          destination: {
            id: String(values["destination"]),
            ...(values["path"] === undefined ? {} : { path: String(values["path"]) })
          }
        }),
    ...(values["sidecars"] === undefined
      ? {}
      : {
          sidecars: String(values["sidecars"])
            .split(",")
            .map((kind) => kind.trim())
            .filter((kind) => kind !== "")
        })
  } as DownloadExtensions
}

const runDownload = async (client: MdsClient, target: string, values: Record<string, any>, io: CliIo) => {
  const format: string | undefined = values["format"]
  if (format === undefined) throw new UsageError("download needs --format (e.g. video_best, video_720p, audio_mp3)")
  const extensions = extensionsOf(values)
  const mode = progressMode(values["progress"], io)
  const display = new ProgressDisplay(mode, io.stderr)
  const source = /^med_[a-z2-7]{24}$/.test(target) ? { mediaId: target } : { url: target }
  const accepted = await client.download(source, format, { extensions })
  // Extension: a stream or premiere that has not begun: the job waits for it (the command with it).
  const startsAt = accepted.starts_at === undefined ? "" : `; the stream starts at ${accepted.starts_at}, the download then`
  io.stderr.write(
    accepted.status === "scheduled"
      ? `job ${accepted.job_id} scheduled${startsAt}\n`
      : mode !== "none"
        ? `job ${accepted.job_id} queued\n`
        : ""
  )
  const job = await client.waitForJob(accepted.job_id, {
    onUpdate: (current) => {
      const { phase, percent, detail } = jobProgressOf(current)
      display.update(phase, percent, detail)
    }
  })
  display.finish()
  if (job.status === "failed") {
    io.stderr.write(`job ${job.id} failed: ${job.error?.code ?? "unknown"}: ${job.error?.message ?? ""}\n`)
    return 1
  }
  if (job.delivery !== undefined && values["output"] === undefined) {
    // Delivered: the file is in the destination; nothing is saved here unless -o asks for it too.
    if (values["json"] === true) io.stdout.write(`${JSON.stringify({ job, delivered: job.delivery })}\n`)
    else io.stdout.write(`${job.delivery.destination_id}:${job.delivery.path}\n`)
    return 0
  }
  const output = resolvePath(io.cwd, values["output"] ?? basename(job.result?.filename ?? `${job.id}.bin`))
  const bytes = await saveFile(client, job, output, display)
  if (values["json"] === true) io.stdout.write(`${JSON.stringify({ job, path: output, bytes })}\n`)
  else io.stdout.write(`${output}\n`)
  return 0
}

const execute = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: "string", short: "f" },
      output: { type: "string", short: "o" },
      progress: { type: "string" },
      start: { type: "string" },
      end: { type: "string" },
      precise: { type: "boolean" },
      "video-codec": { type: "string" },
      container: { type: "string" },
      "audio-bitrate": { type: "string" },
      mute: { type: "boolean" },
      "embed-metadata": { type: "boolean" },
      "embed-thumbnail": { type: "boolean" },
      subtitles: { type: "string" },
      "max-duration": { type: "string" },
      destination: { type: "string" },
      path: { type: "string" },
      sidecars: { type: "string" },
      every: { type: "string" },
      name: { type: "string" },
      endpoint: { type: "string" },
      bucket: { type: "string" },
      region: { type: "string" },
      prefix: { type: "string" },
      backfill: { type: "string" },
      "keep-last": { type: "string" },
      "keep-days": { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" }
    }
  })
  const [command, ...rest] = positionals
  if (values.help === true || command === undefined || command === "help") {
    io.stdout.write(USAGE)
    return command === undefined && values.help !== true ? 2 : 0
  }
  const apiKey = io.env["MDS_API_KEY"]
  if (apiKey === undefined || apiKey === "") throw new UsageError("set MDS_API_KEY to your API key (e.g. export MDS_API_KEY=svc_...)")
  const client = new MdsClient({ baseUrl: io.env["MDS_URL"] ?? DEFAULT_URL, apiKey })
  const print = (data: unknown, text: string) => io.stdout.write(values.json === true ? `${JSON.stringify(data, null, 2)}\n` : text)
  /** Prints the answer (as JSON with --json) and exits 0. */
  const show = async <A>(answer: Promise<A>, text: (value: A) => string) => {
    const value = await answer
    print(value, text(value))
    return 0
  }
  const [first = "", second = ""] = rest
  const oneArgument = rest.length === 1
  // Each command: its usage line, whether the arguments fit it, and what it does.
  const commands: Readonly<Record<string, readonly [usage: string, fits: boolean, run: () => Promise<number>]>> = {
    resolve: ["mds resolve URL", oneArgument, () => show(client.resolve(first), mediaText)],
    download: ["mds download URL|MEDIA_ID --format FORMAT [-o FILE]", oneArgument, () => runDownload(client, first, values, io)],
    cancel: ["mds cancel JOB_ID", oneArgument, () => show(client.cancel(first), jobText)],
    retry: ["mds retry JOB_ID", oneArgument, () => show(client.retry(first), jobText)],
    stop: ["mds stop JOB_ID", oneArgument, () => show(client.stop(first), jobText)],
    batch: ["mds batch PLAYLIST_URL --format FORMAT", oneArgument, () => runBatch(client, first, values, io)],
    batches: [
      "mds batches get|cancel BATCH_ID",
      (first === "get" || first === "cancel") && rest.length === 2,
      () => show(first === "get" ? client.batch(second) : client.cancelBatch(second), batchText)
    ],
    subscribe: [
      "mds subscribe URL --format FORMAT [--every 1h] [--destination DST_ID [--keep-last N | --keep-days D]]",
      oneArgument,
      () => runSubscribe(client, first, values, io)
    ],
    subscriptions: [
      "mds subscriptions [get|pause|resume|check|remove ID]",
      rest.length === 0 || (["get", "pause", "resume", "check", "remove"].includes(first) && rest.length === 2),
      () => {
        switch (first) {
          case "":
            return show(client.subscriptions(), (all) => (all.length === 0 ? "no subscriptions\n" : all.map(subscriptionText).join("")))
          case "get":
            return show(client.subscription(second), subscriptionText)
          case "pause":
            return show(client.pauseSubscription(second), subscriptionText)
          case "resume":
            return show(client.resumeSubscription(second), subscriptionText)
          case "check":
            return show(client.checkSubscription(second), subscriptionText)
          default:
            return show(client.removeSubscription(second), (removed) => `${removed.id} removed\n`)
        }
      }
    ],
    destinations: [
      "mds destinations [get|test|remove ID] | mds destinations add --name N --endpoint URL --bucket B [--region R] [--prefix P]",
      rest.length === 0 || (first === "add" && rest.length === 1) || (["get", "test", "remove"].includes(first) && rest.length === 2),
      () => {
        switch (first) {
          case "":
            return show(client.destinations(), destinationsText)
          case "add": {
            const request = addRequestOf(values, io.env)
            if (typeof request === "string") throw new UsageError(request)
            return show(client.addDestination(request), destinationText)
          }
          case "get":
            return show(client.destination(second), destinationText)
          case "test":
            return client.testDestination(second).then((result) => {
              print(result, testText(result))
              return result.ok ? 0 : 1
            })
          default:
            return show(
              client.removeDestination(second),
              (removed) => `${removed.id} removed
`
            )
        }
      }
    ],
    platforms: ["mds platforms", true, () => show(client.platforms(), platformsText)],
    jobs: ["mds jobs get JOB_ID", first === "get" && rest.length === 2, () => show(client.job(second), jobText)],
    usage: [
      "mds usage [--from YYYY-MM-DD] [--to YYYY-MM-DD]",
      rest.length === 0,
      () => show(client.usage({ from: usageDay("--from", values.from), to: usageDay("--to", values.to) }), usageText)
    ],
    webhooks: [
      "mds webhooks [redeliver DELIVERY_ID]",
      rest.length === 0 || (first === "redeliver" && rest.length === 2),
      () =>
        first === "redeliver"
          ? show(client.redeliverWebhook(second), redeliveryText)
          : show(client.webhookDeliveries({ limit: WHOLE_DELIVERY_LOG }), deliveriesText)
    ]
  }
  const chosen = Object.hasOwn(commands, command) ? commands[command] : undefined
  if (chosen === undefined) throw new UsageError(`unknown command ${command}`)
  const [usage, fits, run] = chosen
  if (!fits) throw new UsageError(`usage: ${usage}`)
  return run()
}

/** Runs one invocation; every failure becomes a message on stderr and an exit code. */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  try {
    return await execute(argv, io)
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))) {
      io.stderr.write(`mds: ${error.message}\n\n${USAGE}`)
      return 2
    }
    if (error instanceof MdsApiError) {
      io.stderr.write(`mds: ${error.code}: ${error.message}${error.requestId === null ? "" : ` (request ${error.requestId})`}\n`)
      return 1
    }
    if (error instanceof MdsConnectionError || error instanceof MdsProtocolError) {
      io.stderr.write(`mds: ${error.message}\n`)
      return 1
    }
    throw error
  }
}

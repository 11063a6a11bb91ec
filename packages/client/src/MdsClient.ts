// Typed client for the /v1 API over fetch: decodes every answer with the API's schemas, retries what may be retried.
import { randomUUID } from "node:crypto"
import { answerStatuses, type Endpoint, endpointPath } from "@mds/shared/api/Endpoint"
import type { DownloadExtensions, DownloadRequest } from "@mds/shared/api/Requests"
import { envelope, type Health, type Job, type JobAccepted, type Media, type Platform } from "@mds/shared/api/Responses"
import { V1 } from "@mds/shared/api/V1Endpoints"
import type { Batch } from "@mds/shared/api/Batches"
import type { CreateSubscriptionRequest, SubscriptionBody } from "@mds/shared/api/Subscriptions"
import type { CreateDestinationRequest, DestinationBody, DestinationTestResult } from "@mds/shared/api/Destinations"
import type { Usage } from "@mds/shared/api/Usage"
import type { WebhookDelivery, WebhookRedelivery } from "@mds/shared/api/WebhookDeliveries"
import { Schema } from "effect"
import { MdsApiError, MdsConnectionError, MdsProtocolError } from "./MdsApiError.ts"
import { nextPollDelay } from "./PollingSchedule.ts"
import { defaultRetryPolicy, isRetryableStatus, parseRetryAfter, type RetryPolicy, retryDelay } from "./RetryPolicy.ts"

export interface MdsClientOptions {
  /** The service root, e.g. `http://127.0.0.1:8080` (a trailing `/v1` is accepted too). */
  readonly baseUrl: string
  readonly apiKey: string
  readonly retry?: Partial<RetryPolicy>
  /** Per attempt. */
  readonly timeoutMs?: number
  readonly fetch?: typeof fetch
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
}

export type DownloadSource = { readonly mediaId: string } | { readonly url: string }

export interface DownloadOptions {
  readonly idempotencyKey?: string
  /** Extensions: a clip section and an output preset (see docs/api.md, Extensions). */
  readonly extensions?: DownloadExtensions
}

export interface WaitOptions {
  /** Called after every poll with the job as it is then. */
  readonly onUpdate?: (job: Job) => void
  readonly signal?: AbortSignal
}

const decoder = <S extends Schema.Top>(schema: S) => Schema.decodeUnknownResult(envelope(schema) as any)
// Codes may be added within v1, so the client reads any string as a code.
const decodeError = Schema.decodeUnknownResult(
  Schema.Struct({
    error: Schema.Struct({ code: Schema.String, message: Schema.String, request_id: Schema.optionalKey(Schema.String) })
  })
)

const isFinished = (job: Job) => job.status === "completed" || job.status === "failed"

const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true }
    )
  })

/** An endpoint whose answer is JSON data the client decodes. */
type DataEndpoint = Endpoint & { readonly success: { readonly data: Schema.Top } }
type DataOf<E extends DataEndpoint> = E["success"]["data"]["Type"]

/** Extension: the days of a usage report, UTC `YYYY-MM-DD`, both included (default: the 30 days up to today). */
export interface UsageRange {
  readonly from?: string | undefined
  readonly to?: string | undefined
}

interface Call {
  readonly params?: Readonly<Record<string, string>>
  /** Query parameters; those left undefined are not sent. */
  readonly query?: Readonly<Record<string, string | undefined>>
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** Whether a lost answer may be retried: true for reads and for writes that carry an idempotency key. */
  readonly idempotent: boolean
}

export class MdsClient {
  readonly root: string
  private readonly apiKey: string
  private readonly policy: RetryPolicy
  private readonly timeoutMs: number
  private readonly fetchImpl: typeof fetch
  private readonly sleep: (ms: number) => Promise<void>
  private readonly random: () => number

  constructor(options: MdsClientOptions) {
    this.root = options.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "")
    this.apiKey = options.apiKey
    this.policy = { ...defaultRetryPolicy, ...options.retry }
    this.timeoutMs = options.timeoutMs ?? 150_000
    this.fetchImpl = options.fetch ?? fetch
    this.sleep = options.sleep ?? ((ms) => sleepFor(ms))
    this.random = options.random ?? Math.random
  }

  health(): Promise<Health> {
    return this.call(V1.getHealth, { idempotent: true })
  }

  platforms(): Promise<ReadonlyArray<Platform>> {
    return this.call(V1.listPlatforms, { idempotent: true })
  }

  /** Resolving has no side effect the client can observe twice, so it is retried like a read. */
  resolve(url: string, options?: { readonly playlist?: { readonly offset?: number; readonly limit?: number } }): Promise<Media> {
    return this.call(V1.resolveMedia, {
      body: options?.playlist === undefined ? { url } : { url, playlist: options.playlist },
      idempotent: true
    })
  }

  /** Extension: downloads a format for entries of a resolved playlist (all by default), fed into the project's slots. */
  createBatch(mediaId: string, format: string, entries?: ReadonlyArray<string>): Promise<Batch> {
    const body = entries === undefined ? { media_id: mediaId, format } : { media_id: mediaId, format, entries }
    // Not idempotent: a lost answer is not retried (it could create a second batch).
    return this.call(V1.createBatch, { body, idempotent: false })
  }

  batch(batchId: string): Promise<Batch> {
    return this.call(V1.getBatch, { params: { batchId }, idempotent: true })
  }

  cancelBatch(batchId: string): Promise<Batch> {
    return this.call(V1.cancelBatch, { params: { batchId }, idempotent: true })
  }

  /** Extension: follows a playlist, channel or feed; each check queues its new entries (its first check runs at once). */
  subscribe(request: CreateSubscriptionRequest): Promise<SubscriptionBody> {
    // Not idempotent: a lost answer is not retried (it could create a second subscription).
    return this.call(V1.createSubscription, { body: request, idempotent: false })
  }

  subscriptions(): Promise<ReadonlyArray<SubscriptionBody>> {
    return this.call(V1.listSubscriptions, { idempotent: true })
  }

  subscription(subscriptionId: string): Promise<SubscriptionBody> {
    return this.call(V1.getSubscription, { params: { subscriptionId }, idempotent: true })
  }

  pauseSubscription(subscriptionId: string): Promise<SubscriptionBody> {
    return this.call(V1.pauseSubscription, { params: { subscriptionId }, idempotent: true })
  }

  resumeSubscription(subscriptionId: string): Promise<SubscriptionBody> {
    return this.call(V1.resumeSubscription, { params: { subscriptionId }, idempotent: true })
  }

  /** Asks for a check now (202); its outcome shows in last_check or last_error. */
  checkSubscription(subscriptionId: string): Promise<SubscriptionBody> {
    return this.call(V1.checkSubscription, { params: { subscriptionId }, idempotent: true })
  }

  removeSubscription(subscriptionId: string): Promise<{ readonly id: string; readonly removed: boolean }> {
    return this.call(V1.removeSubscription, { params: { subscriptionId }, idempotent: true })
  }

  addDestination(request: CreateDestinationRequest): Promise<DestinationBody> {
    // Not idempotent: a lost answer is not retried (it could create a second destination).
    return this.call(V1.createDestination, { body: request, idempotent: false })
  }

  destinations(): Promise<ReadonlyArray<DestinationBody>> {
    return this.call(V1.listDestinations, { idempotent: true })
  }

  destination(destinationId: string): Promise<DestinationBody> {
    return this.call(V1.getDestination, { params: { destinationId }, idempotent: true })
  }

  /** Writes and removes a probe object; safe to repeat. */
  testDestination(destinationId: string): Promise<DestinationTestResult> {
    return this.call(V1.testDestination, { params: { destinationId }, idempotent: true })
  }

  removeDestination(destinationId: string): Promise<{ readonly id: string; readonly removed: boolean }> {
    return this.call(V1.removeDestination, { params: { destinationId }, idempotent: true })
  }

  /**
   * Queues a download. An Idempotency-Key (generated unless given) makes retries safe: a retried request that the
   * server had already carried out answers with the same job instead of queueing a second one.
   */
  download(source: DownloadSource, format: string, options?: DownloadOptions): Promise<JobAccepted> {
    const extensions = options?.extensions ?? {}
    const body: typeof DownloadRequest.Encoded =
      "mediaId" in source ? { ...extensions, media_id: source.mediaId, format } : { ...extensions, url: source.url, format }
    return this.call(V1.downloadMedia, {
      body,
      headers: { "idempotency-key": options?.idempotencyKey ?? randomUUID() },
      idempotent: true
    })
  }

  job(jobId: string): Promise<Job> {
    return this.call(V1.getJob, { params: { jobId }, idempotent: true })
  }

  /** Extension: cancels a queued or processing job; canceling twice answers the same, so it is retried like a read. */
  cancel(jobId: string): Promise<Job> {
    return this.call(V1.cancelJob, { params: { jobId }, idempotent: true })
  }

  /**
   * Extension: stops a live recording and keeps what it recorded (the job then completes with the file); stopping
   * twice answers the same, so it is retried like a read. 409 job_not_live for a job that is not recording.
   */
  stop(jobId: string): Promise<Job> {
    return this.call(V1.stopJob, { params: { jobId }, idempotent: true })
  }

  /**
   * Extension: queues a failed job again whose failure was retryable (409 otherwise, 429 while the project's slots are
   * all held). Not retried by the client: a second try after a lost answer would meet the job queued (409 job_not_failed).
   */
  retry(jobId: string): Promise<Job> {
    return this.call(V1.retryJob, { params: { jobId }, idempotent: false })
  }

  /** Extension: the project's jobs and downloaded bytes per day in the range, and its quotas with their use now. */
  usage(range: UsageRange = {}): Promise<Usage> {
    return this.call(V1.getUsage, { query: { from: range.from, to: range.to }, idempotent: true })
  }

  /** Extension: the project's latest webhook delivery attempts (one entry per attempt), newest first. */
  webhookDeliveries(options: { readonly limit?: number } = {}): Promise<ReadonlyArray<WebhookDelivery>> {
    return this.call(V1.listWebhookDeliveries, {
      query: { limit: options.limit === undefined ? undefined : String(options.limit) },
      idempotent: true
    })
  }

  /**
   * Extension: sends a job's webhook delivery that ended again (409 delivery_pending while its retries go on). Retried
   * like a read: asking again before the redelivery was sent asks once.
   */
  redeliverWebhook(deliveryId: string): Promise<WebhookRedelivery> {
    return this.call(V1.redeliverWebhookDelivery, { params: { deliveryId }, idempotent: true })
  }

  /** Polls the job by the API's rule (2 s, slowing to 5 s while nothing changes) until it completes or fails. */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<Job> {
    let delay: number | null = null
    let previous: Job | null = null
    while (true) {
      const job = await this.job(jobId)
      options.onUpdate?.(job)
      if (isFinished(job)) return job
      const changed =
        previous === null ||
        previous.status !== job.status ||
        previous.progress !== job.progress ||
        previous.recording?.seconds !== job.recording?.seconds
      delay = nextPollDelay(delay, changed)
      previous = job
      await sleepFor(delay, options.signal)
    }
  }

  /** Fetches a signed download link (no API key is sent: the link is the credential). */
  async fetchFile(downloadUrl: string, signal?: AbortSignal): Promise<Response> {
    const response = await this.send(() => this.fetchImpl(downloadUrl, signal === undefined ? {} : { signal }), true)
    if (!response.ok) throw await this.failure(response)
    return response
  }

  /** Calls the endpoint as the API's table describes it: its method, path, answer statuses and answer schema. */
  private async call<E extends DataEndpoint>(endpoint: E, call: Call): Promise<DataOf<E>> {
    const path = endpointPath(endpoint, call.params)
    const query = new URLSearchParams(
      Object.entries(call.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined)
    ).toString()
    const response = await this.send(
      () =>
        this.fetchImpl(`${this.root}${path}${query === "" ? "" : `?${query}`}`, {
          method: endpoint.method,
          headers: {
            "x-api-key": this.apiKey,
            accept: "application/json",
            ...(call.body === undefined ? {} : { "content-type": "application/json" }),
            ...call.headers
          },
          ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
          signal: AbortSignal.timeout(this.timeoutMs)
        }),
      call.idempotent
    )
    if (!answerStatuses(endpoint).includes(response.status)) throw await this.failure(response)
    const json = await this.readJson(response)
    const schema = endpoint.alternatives?.find((alternative) => alternative.status === response.status)?.data ?? endpoint.success.data
    const decoded = decoder(schema)(json)
    if (decoded._tag === "Failure") {
      throw new MdsProtocolError(response.status, `${endpoint.method} ${path}: unexpected answer shape`)
    }
    return (decoded.success as { data: DataOf<E> }).data
  }

  /** One request with retries: on 429/503 (Retry-After honoured) and, when idempotent, on a lost connection. */
  private async send(attempt: () => Promise<Response>, idempotent: boolean): Promise<Response> {
    for (let retry = 1; ; retry++) {
      let response: Response | null = null
      let lost: unknown = null
      try {
        response = await attempt()
      } catch (error) {
        lost = error
      }
      if (response !== null && !isRetryableStatus(response.status)) return response
      if (response === null && !idempotent) throw new MdsConnectionError(describe(lost), { cause: lost })
      const retryAfter = response === null ? null : parseRetryAfter(response.headers.get("retry-after"), Date.now())
      const wait = retryDelay(this.policy, retry, retryAfter, this.random())
      if (wait === null) {
        if (response !== null) return response
        throw new MdsConnectionError(describe(lost), { cause: lost })
      }
      await response?.body?.cancel().catch(() => undefined)
      await this.sleep(wait)
    }
  }

  private async readJson(response: Response): Promise<unknown> {
    const text = await response.text()
    try {
      return JSON.parse(text)
    } catch {
      throw new MdsProtocolError(response.status, `HTTP ${response.status}: the answer is not JSON`)
    }
  }

  private async failure(response: Response): Promise<Error> {
    const text = await response.text().catch(() => "")
    let json: unknown = null
    try {
      json = JSON.parse(text)
    } catch {
      // Not the envelope: reported below as a protocol error.
    }
    const decoded = decodeError(json)
    if (decoded._tag === "Success") {
      const { code, message, request_id } = decoded.success.error
      return new MdsApiError(response.status, code, message, request_id ?? null)
    }
    return new MdsProtocolError(response.status, `HTTP ${response.status}: ${text.slice(0, 200) || "empty answer"}`)
  }
}

const describe = (error: unknown) =>
  error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error)

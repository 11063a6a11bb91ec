// Polls GET /jobs/{id} the way the spec tells clients to (every 2 s, with a deadline) and keeps every snapshot seen.
import { eventually } from "../support/Eventually.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"

/** The spec's lower bound for the polling interval. */
export const POLL_INTERVAL_MS = 2_000

/** A well-behaved client: a 429 polling_too_fast (the previous poll was under 2 s ago) means waiting Retry-After. */
export const pollingBackoffMs = (response: ApiResponse): number | null =>
  response.status === 429 && response.body?.error?.code === "polling_too_fast"
    ? Number(response.headers.get("retry-after") ?? "2") * 1000
    : null

export interface PollOutcome {
  /** The final job document (`data`), completed or failed. */
  readonly job: any
  /** Every job document seen, in order. */
  readonly snapshots: ReadonlyArray<any>
}

export const pollJobUntilFinished = async (
  baseUrl: string,
  key: string,
  jobId: string,
  options: { readonly timeoutMs?: number; readonly logs?: () => string } = {}
): Promise<PollOutcome> => {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  const snapshots: Array<any> = []
  let last: ApiResponse | null = null
  while (Date.now() < deadline) {
    last = await apiRequest(baseUrl, "GET", `/jobs/${jobId}`, { key })
    const wait = pollingBackoffMs(last)
    if (wait !== null) {
      await new Promise((r) => setTimeout(r, wait))
      continue
    }
    if (last.status !== 200) {
      throw new Error(`GET /jobs/${jobId} answered ${describeResponse(last)}\n${options.logs?.() ?? ""}`)
    }
    const job = last.body?.data
    snapshots.push(job)
    if (job?.status === "completed" || job?.status === "failed") return { job, snapshots }
    await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS))
  }
  throw new Error(
    `job ${jobId} did not finish in time; last ${last === null ? "none" : describeResponse(last)}\n` +
      `statuses seen: ${snapshots.map((s) => `${s?.status}:${s?.progress}`).join(" ")}\n${options.logs?.() ?? ""}`
  )
}

/** Polls until the predicate holds on the job response (any status code), or throws at the deadline. */
export const pollJobUntil = (
  baseUrl: string,
  key: string,
  jobId: string,
  predicate: (response: ApiResponse) => boolean,
  options: { readonly timeoutMs?: number; readonly logs?: () => string } = {}
): Promise<ApiResponse> =>
  eventually(
    () => apiRequest(baseUrl, "GET", `/jobs/${jobId}`, { key }),
    predicate,
    () => `job ${jobId}: condition\n${options.logs?.() ?? ""}`,
    options.timeoutMs ?? 60_000,
    POLL_INTERVAL_MS
  )

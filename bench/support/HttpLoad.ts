// Drives HTTP load with autocannon (bounded by duration or count) and reduces its result to what the tables need.
import autocannon from "autocannon"

export interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly total: number
  readonly statusCounts: Readonly<Record<string, number>>
  readonly errors: number
}

export interface LoadOptions {
  readonly url: string
  readonly connections: number
  readonly durationSeconds?: number
  readonly amount?: number
  /** Fixed arrival rate over all connections; latencies are then corrected for coordinated omission. */
  readonly overallRate?: number
  readonly method?: "GET" | "POST"
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** Called once per request to set its headers and body (e.g. a different key per request). */
  readonly nextRequest?: () => { headers?: Record<string, string>; body?: string; path?: string }
}

export const runLoad = async (options: LoadOptions): Promise<LoadResult> => {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    // Every loop is bounded: by count when given, else by time (never both unbounded).
    ...(options.amount === undefined ? { duration: options.durationSeconds ?? 5 } : { amount: options.amount }),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    timeout: 10,
    method: options.method ?? "GET",
    headers: { ...options.headers },
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.nextRequest === undefined
      ? {}
      : {
          requests: [
            {
              setupRequest: (request: any) => {
                const next = options.nextRequest!()
                return {
                  ...request,
                  ...(next.path === undefined ? {} : { path: next.path }),
                  headers: { ...request.headers, ...next.headers },
                  ...(next.body === undefined ? {} : { body: next.body })
                }
              }
            }
          ]
        })
  })
  const statusCounts: Record<string, number> = {}
  for (const [code, stats] of Object.entries((result as any).statusCodeStats ?? {})) {
    statusCounts[code] = Number((stats as { count: number | string }).count)
  }
  const total = Object.values(statusCounts).reduce((a, b) => a + b, 0)
  return {
    requestsPerSecond: total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total,
    statusCounts,
    errors: result.errors
  }
}

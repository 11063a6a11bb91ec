// A thin HTTP client for the /v1 API as a black box: raw status, headers and parsed JSON, for end-to-end assertions.

export interface ApiResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly body: any
}

export interface ApiRequestOptions {
  readonly key?: string
  /** Send the key as `Authorization: Bearer` instead of `X-API-Key`. */
  readonly bearer?: boolean
  /** A JSON value to send. */
  readonly json?: unknown
  /** A raw body sent as is (for malformed JSON and oversize tests). */
  readonly rawBody?: string
  readonly headers?: Readonly<Record<string, string>>
}

export const apiRequest = async (baseUrl: string, method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiResponse> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) {
    if (options.bearer === true) headers["authorization"] = `Bearer ${options.key}`
    else headers["x-api-key"] = options.key
  }
  let body: string | undefined
  if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    headers["content-type"] ??= "application/json"
  } else if (options.rawBody !== undefined) {
    body = options.rawBody
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(150_000)
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

/** A one-line description of a response, for assertion messages. */
export const describeResponse = (response: ApiResponse) => `HTTP ${response.status} ${response.text.slice(0, 600)}`

/** An API bound to one base URL and one key. */
export const apiFor = (baseUrl: string, key: string) => ({
  resolve: (url: string) => apiRequest(baseUrl, "POST", "/media/resolve", { key, json: { url } }),
  download: (body: Readonly<Record<string, string>>) => apiRequest(baseUrl, "POST", "/media/download", { key, json: body }),
  job: (jobId: string) => apiRequest(baseUrl, "GET", `/jobs/${encodeURIComponent(jobId)}`, { key })
})

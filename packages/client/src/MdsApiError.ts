// Failures the client reports: an API error envelope, an unreadable answer, or a server that cannot be reached.

/** The server answered with the /v1 error envelope. */
export class MdsApiError extends Error {
  override readonly name = "MdsApiError"
  readonly status: number
  readonly code: string
  readonly requestId: string | null
  constructor(status: number, code: string, message: string, requestId: string | null) {
    super(message)
    this.status = status
    this.code = code
    this.requestId = requestId
  }
}

/** The server answered something that is not the documented shape (a proxy page, a different service...). */
export class MdsProtocolError extends Error {
  override readonly name = "MdsProtocolError"
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** No answer at all (connection refused, reset, timed out), after the retries. */
export class MdsConnectionError extends Error {
  override readonly name = "MdsConnectionError"
}

// Answers what node's HTTP parser refuses before fastify sees a request (oversized headers, broken HTTP) with the /v1 error envelope.
import type { Socket } from "node:net"
import type { ApiErrorCode } from "@mds/shared/api/ErrorCodes"
import { retryHints } from "@mds/shared/api/RetryableErrors"
import { newRequestId } from "./RequestIds.ts"

const rawAnswer = (status: number, reason: string, code: ApiErrorCode, message: string): string => {
  const requestId = newRequestId()
  const body = JSON.stringify({ error: { code, message, request_id: requestId, ...retryHints(code) } })
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    "connection: close",
    "",
    body
  ].join("\r\n")
}

/**
 * fastify's `clientErrorHandler`. No request exists yet, so the answer is written to the socket by hand, which is
 * then closed (the parser cannot find the next request after a broken one). A header timeout (a client that sends
 * nothing) and a reset connection get no answer: nobody is listening for one.
 */
export const answerClientError = (error: Error & { readonly code?: string }, socket: Socket): void => {
  if (error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT" || socket.destroyed || !socket.writable) {
    socket.destroy()
    return
  }
  socket.end(
    error.code === "HPE_HEADER_OVERFLOW"
      ? rawAnswer(431, "Request Header Fields Too Large", "headers_too_large", "The request headers are larger than 16 KiB in all.")
      : rawAnswer(400, "Bad Request", "invalid_request", "The request is not valid HTTP/1.1.")
  )
}

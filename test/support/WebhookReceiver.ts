// A local HTTP endpoint that records webhook deliveries and answers with scripted statuses; signatures are checked
// by an independent implementation: Python's hmac module in a subprocess.
import { spawnSync } from "node:child_process"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface ReceivedDelivery {
  readonly at: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly status: number
}

export interface WebhookReceiver {
  readonly url: string
  readonly hostPort: string
  readonly received: ReadonlyArray<ReceivedDelivery>
  /** The statuses to answer with, in order; once used up, 204. */
  answerWith(statuses: ReadonlyArray<number>): void
  waitFor(count: number, timeoutMs?: number): Promise<ReadonlyArray<ReceivedDelivery>>
  close(): Promise<void>
}

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const received: Array<ReceivedDelivery> = []
  let script: Array<number> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString()))
    request.on("end", () => {
      const status = script.shift() ?? 204
      received.push({ at: Date.now(), headers: request.headers, body, status })
      response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hooks/mds`,
    hostPort: `127.0.0.1:${port}`,
    received,
    answerWith: (statuses) => void (script = [...statuses]),
    waitFor: async (count, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs
      while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      if (received.length < count) throw new Error(`expected ${count} deliveries, got ${received.length}`)
      return received
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// Written from the documentation (docs/api.md), not from our TypeScript: t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>.
const PYTHON_VERIFIER = `
import hashlib, hmac, json, sys, time
given = json.load(sys.stdin)
parts = dict(item.split("=", 1) for item in given["header"].split(","))
expected = hmac.new(given["secret"].encode(), (parts["t"] + "." + given["body"]).encode(), hashlib.sha256).hexdigest()
fresh = abs(time.time() - int(parts["t"])) <= 300
print("valid" if hmac.compare_digest(expected, parts["v1"]) and fresh else "invalid")
`

/** "valid" or "invalid", as Python's hmac sees the delivery. */
export const verifyWithPython = (secret: string, delivery: ReceivedDelivery): string => {
  const result = spawnSync("python3", ["-c", PYTHON_VERIFIER], {
    input: JSON.stringify({ secret, header: String(delivery.headers["mds-signature"] ?? ""), body: delivery.body }),
    encoding: "utf8"
  })
  if (result.status !== 0) throw new Error(`python verifier failed: ${result.stderr}`)
  return result.stdout.trim()
}

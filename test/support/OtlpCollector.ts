// A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON trace exports on /v1/traces and keeps the spans.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface CollectedSpan {
  readonly service: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string
  readonly name: string
  readonly attributes: Readonly<Record<string, unknown>>
}

export interface OtlpCollector {
  readonly endpoint: string
  readonly spans: ReadonlyArray<CollectedSpan>
  close(): Promise<void>
}

const attributeValue = (value: any): unknown => value?.stringValue ?? value?.intValue ?? value?.boolValue ?? value?.doubleValue ?? null

const attributes = (list: ReadonlyArray<any> | undefined) =>
  Object.fromEntries((list ?? []).map((item) => [item.key, attributeValue(item.value)]))

export const startOtlpCollector = async (): Promise<OtlpCollector> => {
  const spans: Array<CollectedSpan> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString()))
    request.on("end", () => {
      if (request.url === "/v1/traces" && request.method === "POST") {
        const parsed = JSON.parse(body)
        for (const resourceSpans of parsed.resourceSpans ?? []) {
          const service = String(attributes(resourceSpans.resource?.attributes)["service.name"] ?? "")
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? "",
                name: span.name,
                attributes: attributes(span.attributes)
              })
            }
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

// Reads server-sent events off a fetch body in tests: one parsed event (name, id, JSON data) per call to next().

export interface SseEvent {
  readonly event: string
  readonly id: string
  readonly data: any
}

/** Reads server-sent events off a fetch body, one parsed event per call to next(). */
export const sseReader = (body: ReadableStream<Uint8Array>) => {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  let raw = ""
  return {
    raw: () => raw,
    async next(): Promise<SseEvent | null> {
      while (true) {
        const boundary = buffer.indexOf("\n\n")
        if (boundary >= 0) {
          const block = buffer.slice(0, boundary)
          buffer = buffer.slice(boundary + 2)
          const fields = new Map<string, string>()
          for (const line of block.split("\n")) {
            if (line.startsWith(":") || line === "") continue
            const colon = line.indexOf(":")
            fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart())
          }
          if (!fields.has("data")) continue
          return { event: fields.get("event") ?? "message", id: fields.get("id") ?? "", data: JSON.parse(fields.get("data") ?? "") }
        }
        const { done, value } = await reader.read()
        if (done) return null
        const text = decoder.decode(value, { stream: true })
        raw += text
        buffer += text
      }
    }
  }
}
